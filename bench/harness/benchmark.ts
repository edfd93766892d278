/**
 * The shared harness. A benchmark declares the stack it runs against, the data it needs, the series it
 * times (each next to the raw reads it compares against) and its report; `benchmark` runs it: options
 * and size, the stack (started before the data, its functions' environment in this process, stopped
 * before the report), the series interleaved group by group, the load at each mark, the machine and
 * the code measured, and the Markdown report, written to bench/<name>-figures.md (a reduced run to
 * <name>-figures.quick.md).
 */
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { NoStackError, runningLocalStack, useStackEnvironment } from '../../infra/stack-target';
import { loadAverage, machine, productVersion, projectRoot } from './machine';
import { figures, interleave, type Schedule, type Series } from './series';
import { cleanUp, startInProcess, startStack, type RunningStack } from './stack';
import { fmt } from './stats';

export interface Context {
  /** 1 for the full benchmark; `--quick` is 0.1, `--scale x` or BENCH_SCALE=x any other. */
  scale: number;
  /** A full-size count scaled, at least `least`. */
  size(full: number, least?: number): number;
  option(name: string): string | undefined;
  /** Notes the load average at a named moment, for the report's first paragraph. */
  mark(moment: string): void;
  progress(message: string): void;
  /** The stack the benchmark declared, running (from `data` on). */
  stack: RunningStack;
}

/** Series timed together on one schedule; `mark` notes the load once they are done. */
export interface SeriesGroup {
  series: Series[];
  schedule: Schedule;
  mark?: string;
}

/** What a report is made from. */
export interface Run<D, M> {
  data: D;
  measured: M;
  /** Every series timed, group after group. */
  series: Series[];
  /** Milliseconds each group of series took, in order. */
  groupMs: number[];
  /** Percentiles by series key, and the handler's logged durations of API series. */
  f: ReturnType<typeof figures>;
  /** The handlers' own `durationMs` by request id (a stack in a child process logs them). */
  handlerMs?: Map<string, number>;
}

/** Report sections by heading, in order; each a list of blocks (paragraphs, tables, lists). */
export type Sections = Record<string, (string | false | undefined)[]>;

export interface Benchmark<D, M> {
  /** The report is bench/<name>-figures.md. */
  name: string;
  script: string;
  title: string;
  /** Tool versions for the machine line, besides Node. */
  tools?: () => Record<string, string>;
  /** A fresh local stack in a child process (as `npm start` runs it), or in this process. */
  stack?: 'child' | 'in-process';
  /** The data it needs, made before anything is timed. */
  data(context: Context): Promise<D>;
  /** The series it times: API requests next to the raw reads of the same data. */
  series?(data: D, context: Context): SeriesGroup[];
  /** Any other measurement, after the series, while the stack still runs. */
  measure?(data: D, context: Context): Promise<M>;
  report(run: Run<D, M>, context: Context): Sections;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : (process.argv[at + 1] ?? '');
}

function context(marks: [string, string][]): Context {
  const scale = process.argv.includes('--quick') ? 0.1 : Number(option('scale') ?? process.env.BENCH_SCALE ?? 1);
  if (!(scale > 0)) throw new Error('--scale and BENCH_SCALE take a number above 0');
  const clock = () => new Date().toISOString().slice(11, 19);
  return {
    scale,
    size: (full, least = 1) => Math.max(least, Math.round(full * scale)),
    option,
    mark: (moment) => marks.push([moment, loadAverage()]),
    progress: (message) => console.error(`[${clock()}] ${message}`),
    get stack(): RunningStack {
      throw new Error('This benchmark declares no stack');
    },
  };
}

/** The stack, the data, the series and other measurements, then the report's sections. */
async function execute<D, M>(definition: Benchmark<D, M>, context: Context): Promise<Sections> {
  if (definition.stack) {
    const stack = definition.stack === 'child' ? await startStack() : await startInProcess({ quiet: true });
    // The product modules this process loads reach the stack's emulators, as its handlers do.
    if (definition.stack === 'child') useStackEnvironment(runningLocalStack(stack.dataDir));
    Object.defineProperty(context, 'stack', { value: stack });
  }
  const data = await definition.data(context);
  const groups = definition.series?.(data, context) ?? [];
  const groupMs: number[] = [];
  for (const { series, schedule, mark } of groups) {
    context.progress(`measuring ${series.length} series × ${schedule.samples}`);
    groupMs.push(await interleave(series, schedule));
    if (mark) context.mark(mark);
  }
  const measured = (await definition.measure?.(data, context)) as M;
  if (definition.stack) await context.stack.stop();
  const series = groups.flatMap((group) => group.series);
  const handlerMs = definition.stack === 'child' ? context.stack.handlerMs : undefined;
  return definition.report({ data, measured, series, groupMs, f: figures(series, handlerMs), handlerMs }, context);
}

/** Runs a benchmark: its stack and directories are cleaned up on failure, which prints the error and exits 1. */
export function benchmark<D, M = undefined>(definition: Benchmark<D, M>): void {
  const started = performance.now();
  const marks: [string, string][] = [['at the start', loadAverage()]];
  const version = productVersion();
  const run = async () => {
    const ctx = context(marks);
    const sections = await execute(definition, ctx);
    marks.push(['at the end', loadAverage()]);
    const end = productVersion();
    const script = relative(projectRoot, process.argv[1] ?? '');
    const size = ctx.scale === 1 ? 'full size' : `**reduced size** (×${ctx.scale} of the full counts)`;
    const header =
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run ${definition.script}\` (${script}), ${size}, on ${machine(definition.tools?.())}. ` +
      `Load average (1 / 5 / 15 min): ${marks.map(([moment, load]) => `${load} ${moment}`).join(', ')}. The whole run took ${fmt.s(performance.now() - started)}. ` +
      `Product code: ${version}${end === version ? '.' : `; it changed during the run (${end} at the end): the figures are of the code loaded at the start.`}`;
    const body = Object.entries(sections).map(([heading, blocks]) => [`## ${heading}`, ...blocks.filter(Boolean)].join('\n\n'));
    const report = [`# ${definition.title}`, header, ...body].join('\n\n') + '\n';
    const file = join(projectRoot, 'bench', `${definition.name}-figures${ctx.scale === 1 ? '' : '.quick'}.md`);
    writeFileSync(file, report);
    console.log(report);
    console.log(`Written to ${relative(projectRoot, file)}`);
    await cleanUp();
    process.exit(0);
  };
  run().catch(async (error: unknown) => {
    // A stack that did not start says why with its own output; any other failure with its stack trace.
    console.error(`Benchmark failed: ${error instanceof NoStackError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanUp();
    process.exit(1);
  });
}
