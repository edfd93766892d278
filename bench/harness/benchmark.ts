/** The harness's runner: a benchmark declares its stack, data, series and report; `benchmark` runs them and writes the report (docs/benchmarks.md#how-a-benchmark-runs). */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { basename, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { NoStackError, runningLocalStack, useStackEnvironment } from '../../infra/stack-target';
import { check, figures, fmt, interleave, type Figures, type Schedule, type Series } from './series';
import { cleanUp, projectRoot, stackErrors, startStack, type RunningStack } from './stack';

export interface Context {
  /** 1 for the full benchmark; `--quick` is 0.1, `--scale x` or BENCH_SCALE=x any other. */
  scale: number;
  /** A full-size count scaled, at least `least`. */
  size(full: number, least?: number): number;
  progress(message: string): void;
  stack: RunningStack;
}

/** What the report is made of: the data, other measurements, every series timed and their percentiles by key. */
export type Run<D, M> = { data: D; measured: M; series: Series[]; f: Figures };
/** Report sections by heading, in order; each a list of blocks (paragraphs, tables, lists). */
export type Sections = Record<string, (string | false | undefined)[]>;

export interface Benchmark<D, M> {
  title: string;
  /** Its report is one section, headed by the title, of bench/<into>-figures.md instead of its own. */
  into?: string;
  /** A fresh local stack in a child process, as `npm start` runs it. */
  stack?: boolean;
  data?(context: Context): Promise<D>;
  series?(data: D, context: Context): { series: Series[]; schedule: Schedule }[];
  /** Any other measurement, after the series, while the stack still runs. */
  measure?(data: D, context: Context): Promise<M>;
  report(run: Run<D, M>, context: Context): Sections;
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(' / ');

/** The commit measured, and whether shared/, functions/ or infra/ differ from it. */
function productVersion(): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' }).stdout?.trim() ?? '';
  const changed = git('status', '--porcelain', '--', 'shared', 'functions', 'infra');
  const dirty = changed ? ` with uncommitted changes to ${changed.split('\n').length} file(s) of shared/, functions/ or infra/` : '';
  return `commit ${git('rev-parse', '--short', 'HEAD') || 'unknown'}${dirty}`;
}

function context(stack?: RunningStack): Context {
  const at = process.argv.indexOf('--scale');
  const scale = process.argv.includes('--quick') ? 0.1 : Number((at > 0 ? process.argv[at + 1] : undefined) ?? process.env.BENCH_SCALE ?? 1);
  check(scale > 0, '--scale and BENCH_SCALE take a number above 0: run again with --quick, --scale 0.2 or none for the full size');
  const progress = (message: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
  return { scale, size: (full, least = 1) => Math.max(least, Math.round(full * scale)), progress, stack: stack as RunningStack };
}

/** The report's sections, the scale, and how the stack ran and the series were timed. */
async function execute<D, M>(definition: Benchmark<D, M>): Promise<[Sections, number, string]> {
  const stack = definition.stack ? await startStack() : undefined;
  // The product modules this process loads reach the stack's emulators, as its handlers do.
  if (stack) useStackEnvironment(runningLocalStack(stack.dataDir));
  const ctx = context(stack);
  const data = (await definition.data?.(ctx)) as D;
  const groups = definition.series?.(data, ctx) ?? [];
  for (const { series, schedule } of groups) {
    ctx.progress(`measuring ${series.length} series × ${schedule.samples}`);
    await interleave(series, schedule);
  }
  const measured = (await definition.measure?.(data, ctx)) as M;
  await stack?.stop();
  const series = groups.flatMap((group) => group.series);
  const memory = tmpdir().startsWith('/dev/shm') ? ', a tmpfs in memory' : '';
  const plural = (n: number, text: string) => (n > 1 ? text : '');
  const method = [
    stack && `A fresh local stack in a child process as \`npm start\` runs it (\`--fresh\`, PORT 0, its data directory under \`${tmpdir()}\`${memory}; serving after ${fmt.s(stack.readyMs)}): the gateway and the handlers in one Node process, DynamoDB Local in a JVM, the bench a third process on the same machine.`,
    ...groups.map(({ series: { length: n }, schedule: { warmUp, samples, block } }) =>
      `${n > 1 ? `${n} series interleaved` : 'One series'}: ${warmUp} unmeasured operation${warmUp === 1 ? '' : 's'}${plural(n, ' each')}, then ${samples} measured, one at a time${plural(n, `, in alternating blocks of ${block} (the first series rotating every round)`)}.`),
  ];
  return [definition.report({ data, measured, series, f: figures(series) }, ctx), ctx.scale, method.filter(Boolean).join(' ')];
}

const EARLIER = '## Earlier measurements\n';

/** A report in place of its last one, keeping "Earlier measurements" and, beside a whole report, the sections other benchmarks wrote (each opens with its own "Measured …" line). */
function writeReport(file: string, report: string, section: boolean): void {
  const old = existsSync(file) ? readFileSync(file, 'utf8').split(/^(?=## )/m).map((part) => part.trimEnd()).filter(Boolean) : [];
  const [earlier, rest] = [old.filter((part) => part.startsWith(EARLIER)), old.filter((part) => !part.startsWith(EARLIER))];
  const heading = report.slice(0, report.indexOf('\n') + 1);
  const parts = section ? [...rest.filter((part) => !part.startsWith(heading)), report] : [report, ...rest.filter((part) => /^## .*\n\nMeasured /.test(part))];
  writeFileSync(file, `${[...parts, ...earlier].join('\n\n')}\n`);
}

/** Runs a benchmark and writes its report to bench/<entry file's name>-figures.md; on failure (everything started cleaned up) prints the error and exits 1. */
export function benchmark<D = undefined, M = undefined>(definition: Benchmark<D, M>): void {
  const entry = relative(projectRoot, process.argv[1] ?? '');
  const command = process.env.npm_lifecycle_event ? `npm run ${process.env.npm_lifecycle_event}` : `tsx ${entry}`;
  const file = (scale: number) => join(projectRoot, 'bench', `${definition.into ?? basename(entry, '.bench.ts')}-figures${scale === 1 ? '' : '.quick'}.md`);
  if (process.argv.includes('--help')) {
    console.log(`${command} [-- --quick | --scale <x>]: ${definition.title}, into ${relative(projectRoot, file(1))} (a reduced run into .quick.md). Method: docs/benchmarks.md.`);
    process.exit(0);
  }
  const [started, loadBefore, version] = [performance.now(), load(), productVersion()];
  const run = async () => {
    const [sections, scale, method] = await execute(definition);
    const [end, when] = [productVersion(), new Date().toISOString().slice(0, 16).replace('T', ' ')];
    const size = scale === 1 ? 'full size' : `**reduced size** (×${scale} of the full counts)`;
    const machine = `${availableParallelism()} CPUs (nproc) × ${cpus()[0]?.model.trim()}, ${fmt.gib(totalmem())} RAM, ${process.platform}/${process.arch}; Node ${process.version}`;
    const header = [
      `Measured ${when} UTC by \`${command}\` (${entry}), ${size}, on ${machine}.`,
      `Load average (1 / 5 / 15 min): ${loadBefore} at the start, ${load()} at the end. The whole run took ${fmt.s(performance.now() - started)}.`,
      `Product code: ${version}${end === version ? '.' : `; it changed during the run (${end} at the end): the figures are of the code loaded at the start.`}`,
    ].join(' ');
    const level = definition.into ? '##' : '#';
    const body = Object.entries(sections).map(([heading, blocks]) => [`${level}# ${heading}`, ...blocks.filter(Boolean)].join('\n\n'));
    const report = [`${level} ${definition.title}`, header, method, ...body].filter(Boolean).join('\n\n');
    writeReport(file(scale), report, Boolean(definition.into));
    console.log(`${report}\n\nWritten to ${relative(projectRoot, file(scale))}`);
  };
  run()
    .catch((error: unknown) => {
      console.error(`Benchmark failed: ${error instanceof NoStackError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (stackErrors().length > 0) console.error(`The stack's last errors and warnings:\n${stackErrors().join('\n')}`);
      process.exitCode = 1;
    })
    .finally(() => cleanUp().then(() => process.exit()));
}
