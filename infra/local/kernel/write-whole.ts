import { renameSync, rmSync, writeFileSync, type WriteFileOptions } from 'node:fs';

/**
 * Writes `text` to `file` whole: to a file beside it, then renamed over it, so that a reader (the
 * tests' teardown reading a report) never sees it half written, even when the stack is killed mid-write.
 */
export function writeFileWhole(file: string, text: string, options?: WriteFileOptions): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, options);
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * A report kept up to date on disk (`files`: each path and text), written after a change and on exit. A write
 * that fails is logged: the stack must not fall over for it (its directory removed, say).
 */
export function keptReport(what: string, files: () => Record<string, string> | undefined, delayMs = 2_000) {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    try {
      for (const [file, text] of Object.entries(files() ?? {})) writeFileWhole(file, text);
    } catch (error) {
      console.error(`The local stack could not write ${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  process.on('exit', write);
  return {
    write,
    /** Writes it `delayMs` after the first change since the last write. */
    changed: () => {
      if (!timer && !closed) timer = setTimeout(write, delayMs).unref();
    },
    /** Writes it a last time and stops: no pending write, no write on exit. */
    close: () => {
      write();
      closed = true;
      process.off('exit', write);
    },
  };
}
