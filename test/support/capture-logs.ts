import { logger } from '../../shared/kernel/logger';

/** Runs `work` with the real logger at DEBUG and returns every line written to stdout or stderr meanwhile. */
export async function captureLogs(work: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const level = logger.getLevelName();
  const stdout = process.stdout.write;
  const stderr = process.stderr.write;
  const capture = (chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  logger.setLogLevel('DEBUG');
  try {
    await work();
  } finally {
    logger.setLogLevel(level);
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
  return lines;
}
