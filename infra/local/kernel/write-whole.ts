import { renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Writes `text` to `file` whole: to a file beside it, then renamed over it, so that a reader (the
 * tests' teardown reading a report) never sees it half written, even when the stack is killed mid-write.
 */
export function writeFileWhole(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text);
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}
