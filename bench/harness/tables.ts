/** The Markdown blocks of a report: tables declared by their columns, lists, and the tables benchmarks share. */
import { describeCalls, type Call } from './capacity';
import { fmt, percentile, sum, type Figures, type Series } from './series';

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

type Sampled = { samples: number[] };
/** The p-th percentile of each row's samples, in ms. */
export const pColumn = <R extends Sampled>(p: number): Column<R> => [`p${p} ms`, (r) => fmt.ms(percentile(r.samples, p)), 'right'];

const spread: [string, (samples: number[]) => number][] = [['min', (v) => Math.min(...v)], ['median', (v) => percentile(v, 50)], ['max', (v) => Math.max(...v)]];
/** Min, median and max of each row's samples (ms), in seconds. */
export const secondsColumns = <R extends Sampled>(): Column<R>[] => spread.map(([head, pick]) => [`${head} s`, (r) => (pick(r.samples) / 1000).toFixed(2), 'right']);

/** n, p50, p95 and p99 of each series; then any `more` columns. */
export const seriesTable = (list: Series[], more: Column<Series>[] = []) =>
  table(list, [['series', (s) => s.label], ['n', (s) => s.samples.length, 'right'], ...[50, 95, 99].map((p) => pColumn<Series>(p)), ...more]);

/** How the API series and the raw reads they are compared against are sent. */
export const API_AND_RAW =
  "API requests: `node:http` with a keep-alive agent (the kind of client the raw reads' SDK is) and an ADMIN's access token. Raw reads: the product's store module (shared/adapters/store/table.ts) called in the bench process, the DynamoDB calls the product makes without its use case, authentication or HTTP.";

/** An API series and the raw reads of the same data it is compared against, by key. */
export interface Comparison {
  label: string;
  api: string;
  raw: string;
}

/** Each comparison: n, p50 / p95 of the API and of the raw reads, API ÷ raw at both; then any `more` columns. */
export function comparisonTable<C extends Comparison>(f: Figures, rows: C[], more: Column<C>[] = []): string {
  const both = (key: string) => `${fmt.ms(f.p50(key))} / ${fmt.ms(f.p95(key))}`;
  return table(rows, [
    ['request', (c) => c.label],
    ['n', (c) => f.get(c.api).samples.length, 'right'],
    ['API p50 / p95 ms', (c) => both(c.api), 'right'],
    ['raw p50 / p95 ms', (c) => both(c.raw), 'right'],
    ['API ÷ raw p50 / p95', (c) => `${fmt.ratio(f.p50(c.api) / f.p50(c.raw))} / ${fmt.ratio(f.p95(c.api) / f.p95(c.raw))}`, 'right'],
    ...more,
  ]);
}

/** The DynamoDB calls each operation made (recorded on one in-process call), with items and units. */
export const callsTable = (operations: { label: string; calls: Call[] }[], head = 'operation') =>
  table(operations, [
    [head, (o) => o.label],
    ['DynamoDB calls, in order', (o) => describeCalls(o.calls)],
    ['items read', (o) => sum(o.calls.map((c) => c.items)), 'right'],
    ['RCU', (o) => Number(sum(o.calls.map((c) => c.read)).toFixed(1)), 'right'],
    ['WCU', (o) => Number(sum(o.calls.map((c) => c.write)).toFixed(1)), 'right'],
  ]);
