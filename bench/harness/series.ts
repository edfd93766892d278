/** Timed series (each operation timed alone, its result checked outside the timing), their nearest-rank percentiles, and the report's Markdown tables. */
import { performance } from 'node:perf_hooks';

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
export const fmt = {
  /** Milliseconds: one decimal from 10 up, two under 10. */
  ms: (value: number) => (Number.isFinite(value) ? value.toFixed(value >= 10 ? 1 : 2) : '–'),
  ratio: (value: number) => `${value.toFixed(2)}×`,
  share: (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`,
  int: (value: number) => Math.round(value).toLocaleString('en'),
  kib: (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`,
  mib: (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`,
  gib: (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`,
  s: (ms: number, digits = 1) => `${(ms / 1000).toFixed(digits)} s`,
};

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export async function timed<T>(work: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const result = await work();
  return [performance.now() - started, result];
}

/** The median ms of `runs` calls of `work` after an untimed one (that one's own time when it took over `onceAboveMs`), and the last result. */
export function medianMs<T>(work: () => T, runs: number, onceAboveMs = Infinity): { ms: number; result: T } {
  let result!: T;
  const time = () => {
    const started = performance.now();
    result = work();
    return performance.now() - started;
  };
  const first = time();
  return { ms: first > onceAboveMs ? first : percentile(Array.from({ length: runs }, time), 50), result };
}

/** Operation `i` (warm-ups first), its result verified and `prepare` run before it, both untimed. */
export type Series<T = unknown> = { key: string; label: string; run: (i: number) => Promise<T>; verify?: (result: T, i: number) => void; prepare?: (i: number) => Promise<unknown>; samples: number[] };
export const series = <T>(key: string, label: string, run: Series<T>['run'], verify?: Series<T>['verify']): Series => ({ key, label, run, verify, samples: [] }) as Series;
/** Unmeasured operations per series, then `samples` measured, `block` at a time per series; `between` every operation, untimed (renewing a token). */
export type Schedule = { warmUp: number; block: number; samples: number; between?: () => Promise<unknown> };

/** Every series in rounds after its warm-up: a block per series, the starting series rotating every round, so that load drift hits every series alike. */
export async function interleave(list: Series[], { warmUp, block, samples, between }: Schedule): Promise<void> {
  const one = async (s: Series, i: number) => {
    await between?.();
    await s.prepare?.(i);
    const [elapsed, result] = await timed(() => s.run(i));
    s.verify?.(result, i);
    return elapsed;
  };
  for (const s of list) for (let i = 0; i < warmUp; i++) await one(s, i);
  for (let round = 0; round * block < samples; round++) {
    for (let k = 0; k < list.length; k++) {
      const s = list[(round + k) % list.length]!;
      for (let j = round * block; j < Math.min(samples, (round + 1) * block); j++) s.samples.push(await one(s, warmUp + j));
    }
  }
}

/** Percentiles of series looked up by key. */
export function figures(list: Series[]) {
  const get = (key: string) => {
    const found = list.find((s) => s.key === key);
    check(found, `No series ${key}: the report asks for a key no series of the benchmark declares`);
    return found;
  };
  const p = (key: string, p: number) => percentile(get(key).samples, p);
  return { get, p, p50: (key: string) => p(key, 50), p95: (key: string) => p(key, 95) };
}
export type Figures = ReturnType<typeof figures>;
/** A column: header, cell, and whether it is right-aligned (numbers). */
export type Column<R> = [head: string, cell: (row: R) => string | number, align?: 'right'];
export const table = <R>(rows: readonly R[], columns: Column<R>[]): string =>
  [columns.map(([head]) => head), columns.map(([, , align]) => (align ? '---:' : '---')), ...rows.map((row) => columns.map(([, cell]) => String(cell(row))))].map((cells) => `| ${cells.join(' | ')} |`).join('\n');

export const bullets = (items: (string | false | undefined)[]) => items.flatMap((item) => (item ? [`- ${item}`] : [])).join('\n');
type Sampled = { samples: number[] };
const spread: [string, (samples: number[]) => number][] = [['min', (v) => Math.min(...v)], ['median', (v) => percentile(v, 50)], ['max', (v) => Math.max(...v)]];
/** Min, median and max of each row's samples (ms), in seconds. */
export const secondsColumns = <R extends Sampled>(): Column<R>[] => spread.map(([head, pick]) => [`${head} s`, (r) => (pick(r.samples) / 1000).toFixed(2), 'right']);
/** n, p50, p95 and p99 of each series; then any `more` columns. */
export const seriesTable = (list: Series[], more: Column<Series>[] = []) =>
  table(list, [['series', (s) => s.label], ['n', (s) => s.samples.length, 'right'], ...[50, 95, 99].map((p): Column<Series> => [`p${p} ms`, (s) => fmt.ms(percentile(s.samples, p)), 'right']), ...more]);

export const API_AND_RAW =
  "API requests: `node:http` with a keep-alive agent (the kind of client the raw reads' SDK is) and an ADMIN's access token. Raw reads: the product's store module (shared/adapters/store/table.ts) called in the bench process, the DynamoDB calls the product makes without its use case, authentication or HTTP.";

/** An API series and the raw reads of the same data it is compared against, by key. */
export type Comparison = { label: string; api: string; raw: string };

/** Each comparison: n, p50 / p95 of the API and of the raw reads, API ÷ raw at both; then any `more` columns. */
export function comparisonTable<C extends Comparison>(f: Figures, rows: C[], more: Column<C>[] = []): string {
  const both = (key: string) => `${fmt.ms(f.p50(key))} / ${fmt.ms(f.p95(key))}`;
  return table(rows, [
    ['request', (c) => c.label], ['n', (c) => f.get(c.api).samples.length, 'right'], ['API p50 / p95 ms', (c) => both(c.api), 'right'], ['raw p50 / p95 ms', (c) => both(c.raw), 'right'],
    ['API ÷ raw p50 / p95', (c) => `${fmt.ratio(f.p50(c.api) / f.p50(c.raw))} / ${fmt.ratio(f.p95(c.api) / f.p95(c.raw))}`, 'right'],
    ...more,
  ]);
}
