import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { once } from 'node:events';

/** Stops the local stack (it shuts its servers down on SIGTERM) and removes its data. */
export default async function globalTeardown(): Promise<void> {
  const child = (globalThis as { __localStack?: ChildProcess }).__localStack;
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (process.env.TEST_STACK_DIR) rmSync(process.env.TEST_STACK_DIR, { recursive: true, force: true });
}
