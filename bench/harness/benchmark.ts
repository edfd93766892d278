/**
 * The shared harness's runner. A benchmark declares its stack, the data it needs, the series it times
 * (API requests next to the raw reads of the same data) and its report; `benchmark` starts the stack
 * (its functions' environment in this process), makes the data, interleaves each group of series,
 * stops the stack and writes the report, with the machine, its load and the code measured, to
 * bench/<name>-figures.md (a reduced run to <name>-figures.quick.md).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { NoStackError, runningLocalStack, useStackEnvironment } from '../../infra/stack-target';
import { check, figures, interleave, type Figures, type Schedule, type Series } from './series';
import { cleanUp, projectRoot, stackErrors, startInProcess, startStack, type RunningStack } from './stack';
import { fmt } from './stats';

export interface Context {
  /** 1 for the full benchmark; `--quick` is 0.1, `--scale x` or BENCH_SCALE=x any other. */
  scale: number;
  /** A full-size count scaled, at least `least`. */
  size(full: number, least?: number): number;
  option(name: string): string | undefined;
  progress(message: string): void;
  /** The stack the benchmark declared, running. */
  stack: RunningStack;
}

export interface Run<D, M> {
  data: D;
  measured: M;
  /** Every series timed, and their percentiles by key. */
  series: Series[];
  f: Figures;
}

/** Report sections by heading, in order; each a list of blocks (paragraphs, tables, lists). */
export type Sections = Record<string, (string | false | undefined)[]>;

export interface Benchmark<D, M> {
  /** The report is bench/<name>-figures.md; `npm run <script>` runs the benchmark. */
  name: string;
  script: string;
  title: string;
  /** A fresh local stack in a child process (as `npm start` runs it), or in this process. */
  stack?: 'child' | 'in-process';
  data(context: Context): Promise<D>;
  /** Groups of series, each group interleaved on its schedule. */
  series?(data: D, context: Context): { series: Series[]; schedule: Schedule }[];
  /** Any other measurement, after the series, while the stack still runs. */
  measure?(data: D, context: Context): Promise<M>;
  report(run: Run<D, M>, context: Context): Sections;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

/** The commit measured, and whether shared/, functions/ or infra/ differ from it. */
function productVersion(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' }).stdout?.trim() ?? '';
  const changed = git('status', '--porcelain', '--', 'shared', 'functions', 'infra');
  const dirty = changed ? ` with uncommitted changes to ${changed.split('\n').length} file(s) of shared/, functions/ or infra/` : '';
  return `commit ${git('rev-parse', '--short', 'HEAD') || 'unknown'}${dirty}`;
}

function context(stack?: RunningStack): Context {
  const option = (name: string) => (process.argv.includes(`--${name}`) ? (process.argv[process.argv.indexOf(`--${name}`) + 1] ?? '') : undefined);
  const scale = process.argv.includes('--quick') ? 0.1 : Number(option('scale') ?? process.env.BENCH_SCALE ?? 1);
  check(scale > 0, '--scale and BENCH_SCALE take a number above 0');
  return {
    scale,
    size: (full, least = 1) => Math.max(least, Math.round(full * scale)),
    option,
    progress: (message) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`),
    get stack() {
      check(stack, 'This benchmark declares no stack');
      return stack;
    },
  };
}

/** The stack, the data, the series and other measurements, then the report's sections. */
async function execute<D, M>(definition: Benchmark<D, M>): Promise<[Sections, number]> {
  const stack = definition.stack === 'child' ? await startStack() : definition.stack ? await startInProcess() : undefined;
  // The product modules this process loads reach the stack's emulators, as its handlers do.
  if (definition.stack === 'child') useStackEnvironment(runningLocalStack(stack!.dataDir));
  const ctx = context(stack);
  const data = await definition.data(ctx);
  const groups = definition.series?.(data, ctx) ?? [];
  for (const { series, schedule } of groups) {
    ctx.progress(`measuring ${series.length} series × ${schedule.samples}`);
    await interleave(series, schedule);
  }
  const measured = (await definition.measure?.(data, ctx)) as M;
  await stack?.stop();
  const series = groups.flatMap((group) => group.series);
  return [definition.report({ data, measured, series, f: figures(series) }, ctx), ctx.scale];
}

/** Runs a benchmark and writes its report; on failure (the stack and directories cleaned up) prints the error and exits 1. */
export function benchmark<D, M = undefined>(definition: Benchmark<D, M>): void {
  const [started, loadBefore, version] = [performance.now(), load(), productVersion()];
  const run = async () => {
    const [sections, scale] = await execute(definition);
    const [end, when] = [productVersion(), new Date().toISOString().slice(0, 16).replace('T', ' ')];
    const size = scale === 1 ? 'full size' : `**reduced size** (×${scale} of the full counts)`;
    const machine = `${availableParallelism()} CPUs (nproc) × ${cpus()[0]?.model.trim()}, ${fmt.gib(totalmem())} RAM, ${process.platform}/${process.arch}; Node ${process.version}`;
    const header = [
      `Measured ${when} UTC by \`npm run ${definition.script}\` (${relative(projectRoot, process.argv[1] ?? '')}), ${size}, on ${machine}.`,
      `Load average (1 / 5 / 15 min): ${loadBefore} at the start, ${load()} at the end. The whole run took ${fmt.s(performance.now() - started)}.`,
      `Product code: ${version}${end === version ? '.' : `; it changed during the run (${end} at the end): the figures are of the code loaded at the start.`}`,
    ].join(' ');
    const body = Object.entries(sections).map(([heading, blocks]) => [`## ${heading}`, ...blocks.filter(Boolean)].join('\n\n'));
    const report = [`# ${definition.title}`, header, ...body].join('\n\n') + '\n';
    const file = join(projectRoot, 'bench', `${definition.name}-figures${scale === 1 ? '' : '.quick'}.md`);
    writeFileSync(file, report);
    console.log(`${report}\nWritten to ${relative(projectRoot, file)}`);
    await cleanUp();
    process.exit(0);
  };
  run().catch(async (error: unknown) => {
    // A stack that did not start says why with its own output; any other failure with its stack trace.
    console.error(`Benchmark failed: ${error instanceof NoStackError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    const errors = stackErrors();
    if (errors.length > 0) console.error(`The stack's last errors and warnings:\n${errors.join('\n')}`);
    await cleanUp();
    process.exit(1);
  });
}
