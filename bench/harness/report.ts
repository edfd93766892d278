/**
 * A benchmark's run and its report: options and size, load marks, the Markdown report built from
 * declared tables, written to bench/<name>-figures.md (a reduced run to <name>-figures.quick.md).
 */
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Call } from './capacity';
import { loadAverage, machine, productVersion, projectRoot } from './machine';
import { figures, type Series } from './series';
import { cleanUp } from './stack';
import { fmt, mean, percentile, sum } from './stats';

/** A column: header, cell, and whether it is right-aligned (numbers). */
export type Column<R> = [head: string, cell: (row: R) => string | number, align?: 'right'];

export function table<R>(rows: readonly R[], columns: Column<R>[]): string {
  return [
    `| ${columns.map(([head]) => head).join(' | ')} |`,
    `|${columns.map(([, , align]) => (align ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${columns.map(([, cell]) => String(cell(row))).join(' | ')} |`),
  ].join('\n');
}

export const bullets = (items: (string | false | undefined)[]) => items.flatMap((item) => (item ? [`- ${item}`] : [])).join('\n');

/** n, p50, p95, p99 and mean of each series; with `handlerMs`, the handler's own logged p50 of API series. */
export function seriesTable(list: Series[], handlerMs?: Map<string, number>): string {
  const f = figures(list, handlerMs);
  const columns: Column<Series>[] = [
    ['series', (s) => s.label],
    ['n', (s) => s.samples.length, 'right'],
    ...[50, 95, 99].map((p): Column<Series> => [`p${p}`, (s) => fmt.ms(percentile(s.samples, p)), 'right']),
    ['mean', (s) => fmt.ms(mean(s.samples)), 'right'],
  ];
  if (handlerMs) columns.push(['handler `durationMs` p50', (s) => (f.handler(s.key).length ? percentile(f.handler(s.key), 50) : '–'), 'right']);
  return table(list, columns);
}

export interface Comparison {
  label: string;
  api: string;
  raw: string;
}

/** API ÷ raw at p50 and p95, API − raw at p50; with `aim`, whether both ratios are within it. */
export function ratioTable(list: Series[], comparisons: Comparison[], aim?: number): string {
  const f = figures(list);
  const ratio = (c: Comparison, p: number) => f.p(c.api, p) / f.p(c.raw, p);
  const verdict = (c: Comparison) => (ratio(c, 50) <= aim! && ratio(c, 95) <= aim! ? 'met' : ratio(c, 50) <= aim! ? 'met at p50 only' : 'not met');
  return table(comparisons, [
    ['comparison', (c) => c.label],
    ['p50', (c) => fmt.ratio(ratio(c, 50)), 'right'],
    ['p95', (c) => fmt.ratio(ratio(c, 95)), 'right'],
    ['API − raw p50 ms', (c) => fmt.ms(f.p50(c.api) - f.p50(c.raw)), 'right'],
    ...(aim ? [[`${aim}× aim`, verdict] as Column<Comparison>] : []),
  ]);
}

/** The DynamoDB calls each operation made (recorded on one in-process call), with items and units. */
export const callsTable = (operations: { label: string; calls: Call[] }[], describe: (calls: Call[]) => string) =>
  table(operations, [
    ['operation', (o) => o.label],
    ['DynamoDB calls, in order', (o) => describe(o.calls)],
    ['items read', (o) => sum(o.calls.map((c) => c.items)), 'right'],
    ['RCU', (o) => Number(sum(o.calls.map((c) => c.read)).toFixed(1)), 'right'],
    ['WCU', (o) => Number(sum(o.calls.map((c) => c.write)).toFixed(1)), 'right'],
  ]);

export interface Context {
  /** 1 for the full benchmark; `--quick` is 0.1, `--scale x` or BENCH_SCALE=x any other. */
  scale: number;
  /** A full-size count scaled, at least `least`. */
  size(full: number, least?: number): number;
  option(name: string): string | undefined;
  /** Notes the load average at a named moment, for the report's first paragraph. */
  mark(moment: string): void;
  progress(message: string): void;
}

/** Report sections by heading, in order; each a list of blocks (paragraphs, tables, lists). */
export type Sections = Record<string, (string | false | undefined)[]>;

export interface Benchmark {
  /** The report is bench/<name>-figures.md. */
  name: string;
  script: string;
  title: string;
  /** Tool versions for the machine line, besides Node. */
  tools?: () => Record<string, string>;
  run(context: Context): Promise<Sections>;
}

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : (process.argv[at + 1] ?? '');
}

/** Runs a benchmark: its stack and directories are cleaned up on failure, which prints the error and exits 1. */
export function benchmark(definition: Benchmark): void {
  const scale = process.argv.includes('--quick') ? 0.1 : Number(option('scale') ?? process.env.BENCH_SCALE ?? 1);
  if (!(scale > 0)) throw new Error('--scale and BENCH_SCALE take a number above 0');
  const started = performance.now();
  const clock = () => new Date().toISOString().slice(11, 19);
  const marks: [string, string][] = [['at the start', loadAverage()]];
  const version = productVersion();
  const context: Context = {
    scale,
    size: (full, least = 1) => Math.max(least, Math.round(full * scale)),
    option,
    mark: (moment) => marks.push([moment, loadAverage()]),
    progress: (message) => console.error(`[${clock()}] ${message}`),
  };
  const main = async () => {
    const sections = await definition.run(context);
    marks.push(['at the end', loadAverage()]);
    const end = productVersion();
    const script = relative(projectRoot, process.argv[1] ?? '');
    const size = scale === 1 ? 'full size' : `**reduced size** (×${scale} of the full counts)`;
    const header =
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run ${definition.script}\` (${script}), ${size}, on ${machine(definition.tools?.())}. ` +
      `Load average (1 / 5 / 15 min): ${marks.map(([moment, load]) => `${load} ${moment}`).join(', ')}. The whole run took ${fmt.s(performance.now() - started)}. ` +
      `Product code: ${version}${end === version ? '.' : `; it changed during the run (${end} at the end): the figures are of the code loaded at the start.`}`;
    const body = Object.entries(sections).map(([heading, blocks]) => [`## ${heading}`, ...blocks.filter(Boolean)].join('\n\n'));
    const report = [`# ${definition.title}`, header, ...body].join('\n\n') + '\n';
    const file = join(projectRoot, 'bench', `${definition.name}-figures${scale === 1 ? '' : '.quick'}.md`);
    writeFileSync(file, report);
    console.log(report);
    console.log(`Written to ${relative(projectRoot, file)}`);
    await cleanUp();
    process.exit(0);
  };
  main().catch(async (error: unknown) => {
    console.error(`Benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanUp();
    process.exit(1);
  });
}
