import { NoStackError } from '../stack-target';

/** A bad argument or a missing file: the command line tools print its message alone and exit 2. */
export class UsageError extends Error {}

/** Whether an error is the caller's to fix by calling again otherwise (exit code 2). */
const isUsage = (error: unknown) =>
  error instanceof UsageError || error instanceof NoStackError || String((error as { code?: unknown } | undefined)?.code ?? '').startsWith('ERR_PARSE_ARGS');

/**
 * Runs a command line tool's `main`: what it resolves to (other than undefined) is printed as JSON;
 * a failure is one line on stderr (`describe`'s, else its message, after `prefix`) and exit code 2
 * for a usage error, 1 for any other.
 */
export function runCommand(main: () => Promise<unknown> | unknown, { prefix = '', describe }: { prefix?: string; describe?: (error: unknown) => string } = {}): void {
  Promise.resolve()
    .then(main)
    .then((result) => {
      if (result !== undefined) console.log(JSON.stringify(result, null, 2));
    })
    .catch((error: unknown) => {
      console.error(`${prefix}${describe?.(error) ?? (error instanceof Error ? error.message : String(error))}`);
      process.exit(isUsage(error) ? 2 : 1);
    });
}
