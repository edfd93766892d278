/** The Markdown blocks of a report: tables declared by their columns, lists, and the tables every benchmark shares. */
import { describeCalls, type Call } from './capacity';
import { figures, type Series } from './series';
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
  if (handlerMs) columns.push(['handler `durationMs` p50', (s) => (f.handler(s.key).length ? fmt.ms(percentile(f.handler(s.key), 50)) : '–'), 'right']);
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
export const callsTable = (operations: { label: string; calls: Call[] }[], head = 'operation') =>
  table(operations, [
    [head, (o) => o.label],
    ['DynamoDB calls, in order', (o) => describeCalls(o.calls)],
    ['items read', (o) => sum(o.calls.map((c) => c.items)), 'right'],
    ['RCU', (o) => Number(sum(o.calls.map((c) => c.read)).toFixed(1)), 'right'],
    ['WCU', (o) => Number(sum(o.calls.map((c) => c.write)).toFixed(1)), 'right'],
  ]);
