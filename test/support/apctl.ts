import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/**
 * The real `apctl`, run as a user runs it: a child process of the built command (what `npx apctl`
 * starts), with its own configuration directory and none of this process's APCTL_ variables.
 */
const bin = join(__dirname, '../../clients/cli/bin/apctl.js');

export interface ApctlRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ApctlProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stderr (or rejects on exit before it). */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  done: Promise<ApctlRun>;
}

export function startApctl(args: string[], options: { configHome: string; env?: Record<string, string>; cwd?: string }): ApctlProcess {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('APCTL_')) env[name] = value;
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: { ...env, XDG_CONFIG_HOME: options.configHome, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<ApctlRun>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    waitForStderr: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (!match) return false;
          cleanup();
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`apctl printed no ${pattern} in ${timeoutMs} ms; stderr:\n${stderr}`));
        }, timeoutMs);
        const onExit = () => {
          if (check()) return;
          cleanup();
          reject(new Error(`apctl exited before printing ${pattern}; stderr:\n${stderr}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          child.stderr?.off('data', check);
          child.off('close', onExit);
        };
        if (check()) return;
        child.stderr?.on('data', check);
        child.on('close', onExit);
      }),
  };
}

/** Runs apctl to its end. */
export function apctl(args: string[], options: { configHome: string; env?: Record<string, string> }): Promise<ApctlRun> {
  return startApctl(args, options).done;
}
