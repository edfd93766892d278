/** A phase of work in this process: wall and CPU time, sampled memory, event-loop blocking, and the AWS calls made. */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startRecording, tally, type Tally } from './capacity';

const gc = (globalThis as { gc?: () => void }).gc;
/** Two full collections, when node runs with --expose-gc. */
export const fullGc = () => (gc?.(), gc?.(), gc !== undefined);

export interface PhaseFigures {
  wallMs: number;
  cpuMs: number;
  baseline: NodeJS.MemoryUsage;
  peak: { heapUsed: number; rss: number };
  /** Peak heapUsed sampled before the phase's first `firstCall`. */
  peakBeforeFirst: number;
  /** Milliseconds from the start to the first `firstCall`, if any. */
  firstCallMs?: number;
  loopMaxMs: number;
  calls: Tally;
}

/** Runs `work`; its wall time ends when it calls `end` (or returns). Memory is sampled every 50 ms. */
export async function measurePhase<T>(work: (end: () => void, calls: Tally) => Promise<T>, firstCall?: string): Promise<PhaseFigures & { result: T }> {
  fullGc();
  const baseline = process.memoryUsage();
  const peak = { heapUsed: baseline.heapUsed, rss: baseline.rss };
  let peakBeforeFirst = baseline.heapUsed;
  const calls = tally();
  const sample = () => {
    const now = process.memoryUsage();
    [peak.heapUsed, peak.rss] = [Math.max(peak.heapUsed, now.heapUsed), Math.max(peak.rss, now.rss)];
    if (!firstCall || !calls.firstAt.has(firstCall)) peakBeforeFirst = Math.max(peakBeforeFirst, now.heapUsed);
  };
  const sampler = setInterval(sample, 50);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const stopRecording = startRecording(calls.add);
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  let endedAt: number | undefined;
  try {
    const result = await work(() => (endedAt ??= performance.now()), calls);
    const cpu = process.cpuUsage(cpuStart);
    sample();
    const first = firstCall ? calls.firstAt.get(firstCall) : undefined;
    return {
      result,
      wallMs: (endedAt ?? performance.now()) - started,
      cpuMs: (cpu.user + cpu.system) / 1000,
      baseline,
      peak,
      peakBeforeFirst,
      ...(first !== undefined && { firstCallMs: first - started }),
      loopMaxMs: loop.max / 1e6,
      calls,
    };
  } finally {
    stopRecording();
    clearInterval(sampler);
    loop.disable();
  }
}
