/** Figures and how the reports print them. Percentiles are nearest-rank: with 10 samples p95 is the slowest. */

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

export const fmt = {
  /** Milliseconds: one decimal from 10 up, `below10` decimals under 10. */
  ms: (value: number, below10 = 2) => (Number.isFinite(value) ? value.toFixed(value >= 10 ? 1 : below10) : '–'),
  ratio: (value: number) => `${value.toFixed(2)}×`,
  share: (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`,
  int: (value: number) => Math.round(value).toLocaleString('en'),
  kib: (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`,
  mib: (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`,
  gib: (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`,
  s: (ms: number, digits = 1) => `${(ms / 1000).toFixed(digits)} s`,
};
