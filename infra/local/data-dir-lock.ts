import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileWhole } from './kernel/write-whole';

/** The lock's file name inside the data directory; `--fresh` keeps it while it empties the rest. */
export const LOCK_FILE = 'stack.lock';

/** What the lock file says about the stack that holds it. */
export interface LockHolder {
  pid: number;
  /** When its process started, as the process table tells it: the same pid with another start time is a newer process. */
  startTime?: string;
  /** Known once the holder has bound its port. */
  apiUrl?: string;
}

/** The data directory belongs to another stack that is still running. */
export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string, readonly holder: LockHolder) {
    super(`The data directory ${dataDir} is in use by the local stack ${holder.apiUrl ? `at ${holder.apiUrl} ` : ''}(pid ${holder.pid})`);
  }
}

/** A process as the process table shows it; `kill(pid, 0)` succeeds on a zombie (ended, not yet reaped). */
export type ProcessState = { state: 'gone' } | { state: 'zombie' } | { state: 'running'; startTime?: string };

export type ProcessProbe = (pid: number) => ProcessState;

/** `kill(pid, 0)`, as a process state: running (or a zombie) while the pid is taken. */
function pidState(pid: number): ProcessState {
  try {
    process.kill(pid, 0);
    return { state: 'running' };
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return { state: (error as NodeJS.ErrnoException).code === 'EPERM' ? 'running' : 'gone' };
  }
}

/** Linux: the state and start time (field 22) of `<procRoot>/<pid>/stat`, counted after the command name's last `)`. */
export function procProbe(procRoot = '/proc'): ProcessProbe {
  return (pid) => {
    let stat: string;
    try {
      stat = readFileSync(join(procRoot, String(pid), 'stat'), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'gone' };
      return pidState(pid); // Hidden from this user (hidepid).
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [state] = fields;
    if (state === 'Z') return { state: 'zombie' };
    if (state === 'X') return { state: 'gone' };
    return { state: 'running', startTime: fields[19] };
  };
}

/** Where there is no /proc (macOS): `ps` (state and `lstart`); without it, `kill(pid, 0)` alone. */
export function psProbe(): ProcessProbe {
  return (pid) => {
    const ps = spawnSync('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    if (ps.error) return pidState(pid);
    const line = ps.stdout.trim();
    if (ps.status !== 0 || !line) return { state: 'gone' };
    const [state = '', ...start] = line.split(/\s+/);
    return state.startsWith('Z') ? { state: 'zombie' } : { state: 'running', startTime: start.join(' ') };
  };
}

let machineProbe: ProcessProbe | undefined;
/** The probe this machine offers: /proc where it exists, else `ps`. */
const defaultProbe = (): ProcessProbe => (machineProbe ??= existsSync('/proc/self/stat') ? procProbe() : psProbe());

/**
 * Whether a lock's holder is gone: its process ended (even if not reaped), or its pid belongs to a
 * process started at another time. Without start times to compare, it is live while its pid is taken.
 */
export function holderIsGone(holder: LockHolder, probe: ProcessProbe = defaultProbe()): boolean {
  const found = probe(holder.pid);
  if (found.state !== 'running') return true;
  return holder.startTime !== undefined && found.startTime !== undefined && holder.startTime !== found.startTime;
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
export function liveHolder(dataDir: string, probe?: ProcessProbe): LockHolder | undefined {
  const holder = readHolder(join(dataDir, LOCK_FILE));
  return holder && !holderIsGone(holder, probe) ? holder : undefined;
}

/**
 * Makes this process the one stack of `dataDir`: a pid file created only if absent (a hard link, so it
 * appears whole or not at all). A gone holder's lock is taken over at once, so a killed stack restarts
 * without waiting; a live one throws `DataDirInUseError`. Released on `release()` and at exit.
 */
export function lockDataDir(dataDir: string, probe: ProcessProbe = defaultProbe()) {
  const file = join(dataDir, LOCK_FILE);
  const me = probe(process.pid);
  const mine: LockHolder = { pid: process.pid, ...(me.state === 'running' && me.startTime !== undefined && { startTime: me.startTime }) };
  for (let attempt = 0; ; attempt++) {
    const temp = `${file}.${process.pid}`;
    writeFileSync(temp, JSON.stringify(mine));
    try {
      linkSync(temp, file);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
    } finally {
      rmSync(temp, { force: true });
    }
    const holder = readHolder(file);
    if (holder && !holderIsGone(holder, probe)) throw new DataDirInUseError(dataDir, holder);
    rmSync(file, { force: true });
  }

  let held = true;
  // Safe to call more than once.
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    const holder = readHolder(file);
    if (holder?.pid === process.pid && holder.startTime === mine.startTime) rmSync(file, { force: true });
  };
  process.on('exit', release);
  return {
    /** Adds the stack's URL to the lock, for the message another start prints; written whole, so a reader never sees it half-written. */
    describe: (apiUrl: string) => void (held && writeFileWhole(file, JSON.stringify({ ...mine, apiUrl }))),
    release,
  };
}
