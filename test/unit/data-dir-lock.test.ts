import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DataDirInUseError,
  LOCK_FILE,
  holderIsGone,
  liveHolder,
  lockDataDir,
  procProbe,
  psProbe,
  type LockHolder,
  type ProcessProbe,
  type ProcessState,
} from '../../infra/local/data-dir-lock';
import { tempDirs } from '../support/temp-dirs';

// When the data directory's lock is stale: its holder ended (reaped or still a zombie), or its pid now
// belongs to another process. Real processes throughout: a live one, one that ended, a zombie.

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});
const tempDir = tempDirs('data-dir-lock-');

const procState = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];

/** A process that has ended but stays unreaped: its parent (`sleep`, this test's child) never waits for it. */
async function zombie(): Promise<number> {
  // The child ends only after its shell has become `sleep`: a shell that saw it end first would reap it.
  const parent = spawn('sh', ['-c', 'sh -c "sleep 0.3; exit 0" & echo $!; exec sleep 120'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  for (let waited = 0; procState(pid) !== 'Z' && waited < 5000; waited += 20) await sleep(20);
  expect(procState(pid)).toBe('Z');
  return pid;
}

function liveProcess(): number {
  const child = spawn('sleep', ['120'], { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

const endedPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

function writeLock(dir: string, holder: LockHolder): void {
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify(holder));
}

describe('whether a holder is gone', () => {
  const probeSaying = (state: ProcessState): ProcessProbe => () => state;

  test.each<[string, LockHolder, ProcessState, boolean]>([
    ['its process ended and was reaped', { pid: 10, startTime: '500' }, { state: 'gone' }, true],
    ['its process ended but is not reaped (a zombie)', { pid: 10, startTime: '500' }, { state: 'zombie' }, true],
    ['its pid belongs to a process that started at another time', { pid: 10, startTime: '500' }, { state: 'running', startTime: '900' }, true],
    ['its process runs, started when the lock says', { pid: 10, startTime: '500' }, { state: 'running', startTime: '500' }, false],
    ['the lock has no start time and the pid runs', { pid: 10 }, { state: 'running', startTime: '900' }, false],
    ['the machine cannot tell the start time and the pid runs', { pid: 10, startTime: '500' }, { state: 'running' }, false],
  ])('when %s', (_label, holder, state, gone) => {
    expect(holderIsGone(holder, probeSaying(state))).toBe(gone);
  });
});

// `ps` stands in for /proc on macOS; a Linux image without procps has no `ps` to test.
const hasPs = spawnSync('ps', ['-p', String(process.pid)]).error === undefined;
describe.each<[string, ProcessProbe]>([['/proc', procProbe()], ...(hasPs ? [['ps', psProbe()] as [string, ProcessProbe]] : [])])('the process table as %s shows it', (_name, probe) => {
  test('a running process, with a start time that stays the same', () => {
    const pid = liveProcess();

    const first = probe(pid);

    expect(first).toEqual({ state: 'running', startTime: expect.stringMatching(/\S/) });
    expect(probe(pid)).toEqual(first);
  });

  test('a zombie, and a process that has ended', async () => {
    expect(probe(await zombie())).toEqual({ state: 'zombie' });
    expect(probe(endedPid())).toEqual({ state: 'gone' });
  });
});

test("/proc's start time is field 22, counted after the command name however many spaces and parentheses that holds", () => {
  const procRoot = tempDir();
  mkdirSync(join(procRoot, '4242'));
  const after = ['S', ...Array.from({ length: 18 }, (_, index) => String(index + 4)), '778899', '23', '24'];
  writeFileSync(join(procRoot, '4242', 'stat'), `4242 (my (odd) name) ${after.join(' ')}\n`);

  expect(procProbe(procRoot)(4242)).toEqual({ state: 'running', startTime: '778899' });
  expect(procProbe(procRoot)(4243)).toEqual({ state: 'gone' });
});

describe('the lock', () => {
  test('records this process and its start time; a second lock on the directory is refused while it holds', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    const written = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;

    expect(written).toEqual({ pid: process.pid, startTime: expect.stringMatching(/\S/) });
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    lock.release();
  });

  test('of a killed stack not yet reaped (a zombie) is taken over at once', async () => {
    const dir = tempDir();
    const pid = await zombie();
    writeLock(dir, { pid, startTime: '1', apiUrl: 'http://127.0.0.1:3000' });

    expect(liveHolder(dir)).toBeUndefined();
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  test("naming this process's pid with another start time (a pid reused, as in a restarted container) is taken over", () => {
    const dir = tempDir();
    writeLock(dir, { pid: process.pid, startTime: '1' });

    const lock = lockDataDir(dir);
    const written = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;
    lock.release();

    expect(written).toEqual({ pid: process.pid, startTime: expect.not.stringMatching(/^1$/) });
  });

  test.each<[string, (pid: number) => LockHolder]>([
    ['with its start time', (pid) => ({ pid, startTime: (procProbe()(pid) as { startTime: string }).startTime, apiUrl: 'http://127.0.0.1:3000' })],
    ['without a start time', (pid) => ({ pid, apiUrl: 'http://127.0.0.1:3000' })],
  ])('of a live process %s is refused, naming the holder, and left in place', (_label, holderOf) => {
    const dir = tempDir();
    const holder = holderOf(liveProcess());
    writeLock(dir, holder);

    expect(liveHolder(dir)).toEqual(holder);
    expect(() => lockDataDir(dir)).toThrow(new DataDirInUseError(dir, holder));
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual(holder);
  });

  test('released, leaves a lock that another process wrote meanwhile in place', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    const other = { pid: process.pid, startTime: 'another' };
    writeLock(dir, other);

    lock.release();

    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toEqual(other);
  });
});
