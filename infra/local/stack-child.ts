/**
 * The local stack in a child process with a process group of its own, as a terminal runs `npm start`,
 * so one signal reaches all of it, as a terminal's Ctrl-C does (DynamoDB Local's JVM, in a group of its
 * own, is stopped by the stack, or ends with it). For the tests' and the benchmarks' stacks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot } from '../cloud/project-root';

/** `node infra/local/start.mjs` (what `npm start` runs), or `npm start` as a user types it (npm and its shell in front). */
export type Launcher = 'node' | 'npm start';

export interface StackChild {
  child: ChildProcess;
  /** stdout and stderr so far (the last `tail` characters when given), less the lines `onLine` took. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** Signals the whole group and waits until it is gone, SIGKILL after `graceMs`; whether it was gone before. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<boolean>;
}

/** Whether a signal reached the group (0 only asks): false once every process of it is gone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    return process.kill(-child.pid!, signal);
  } catch {
    return false;
  }
}

/** Starts `infra/local/main.ts` with `args`; `onLine` may take a stdout line (true) so that it is not kept. */
export function spawnLocalStack(
  args: string[],
  { env, launcher = 'node', tail, onLine }: { env: NodeJS.ProcessEnv; launcher?: Launcher; tail?: number; onLine?: (line: string) => boolean },
): StackChild {
  const [command, argv] = launcher === 'npm start' ? ['npm', ['start', '--silent', '--', ...args]] : [process.execPath, ['infra/local/start.mjs', ...args]];
  const child = spawn(command, argv, { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let partial = '';
  const keep = (text: string) => (output = tail ? (output + text).slice(-tail) : output + text);
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => {
    if (!onLine) return keep(chunk.toString());
    // Line by line, so that the pipe never fills and every line is seen whole.
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (!onLine(line)) keep(`${line}\n`);
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000) => {
    signalGroup(child, signal);
    const deadline = Date.now() + graceMs;
    while (signalGroup(child, 0) && Date.now() < deadline) await sleep(20);
    return !signalGroup(child, 'SIGKILL');
  };
  return { child, output: () => output, exited, stop };
}
