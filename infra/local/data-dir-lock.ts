import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lock's file name inside the data directory; `--fresh` keeps it while it empties the rest. */
export const LOCK_FILE = 'stack.lock';

/** What the lock file says about the stack that holds it. */
export interface LockHolder {
  pid: number;
  /** Known once the holder has bound its port. */
  apiUrl?: string;
}

/** The data directory belongs to another stack that is still running. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(`The data directory ${dataDir} is in use by the local stack ${holder.apiUrl ? `at ${holder.apiUrl} ` : ''}(pid ${holder.pid})`);
  }
}

export interface DataDirLock {
  /** Adds the stack's URL to the lock, for the message another start prints. */
  describe(apiUrl: string): void;
  /** Gives the directory up; safe to call more than once. */
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined; // Gone meanwhile, or not a lock this code wrote.
  }
}

/** The live stack holding `dataDir` (one that is starting, running or stopping), if any. */
export function liveHolder(dataDir: string): LockHolder | undefined {
  const holder = readHolder(join(dataDir, LOCK_FILE));
  return holder && isAlive(holder.pid) ? holder : undefined;
}

/** Writes `holder` to `file` whole: readers never see a half-written lock. */
function writeWhole(file: string, holder: LockHolder, place: (temp: string) => void): void {
  const temp = `${file}.${process.pid}`;
  writeFileSync(temp, JSON.stringify(holder));
  try {
    place(temp);
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Makes this process the one stack of `dataDir`: a pid file created only if absent (a hard link, so
 * it appears whole or not at all). A lock whose process is gone (a stack that was killed) is taken
 * over; a live one throws `DataDirInUseError`. Released on `release()` and when the process exits.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid };
  for (let attempt = 0; ; attempt++) {
    try {
      writeWhole(file, mine, (temp) => linkSync(temp, file));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    }
    const holder = readHolder(file);
    if (holder && isAlive(holder.pid)) throw new DataDirInUseError(dataDir, holder);
    rmSync(file, { force: true });
  }

  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
  };
  process.on('exit', release);
  return {
    describe: (apiUrl) => {
      if (held) writeWhole(file, { ...mine, apiUrl }, (temp) => renameSync(temp, file));
    },
    release,
  };
}
