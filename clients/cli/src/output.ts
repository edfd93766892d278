import { ApiError, ConnectionError, OAuthError } from '../../typescript/src/index';

/**
 * Exit codes, the same for every command: 0 done, 1 failed (a refusal, an unreachable API, a row that
 * failed, a bad argument), 2 `bundle plan` found changes to make.
 */
export const EXIT = { ok: 0, failed: 1, changes: 2 } as const;

/** A mistake in how the command was called: its message says what to do instead. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure already explained to the user, ending the command with this exit code. */
export class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** One line for each failure a user can act on: never a stack, a token or an internal name. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) {
    const what = error.body?.message ?? `The API answered ${error.status}`;
    const details = (error.body?.details ?? []).map((detail) => `\n  ${detail.fieldName}: ${detail.message}`).join('');
    const reference = [`HTTP ${error.status}`, error.code, error.requestId && `request id ${error.requestId}`].filter(Boolean).join(', ');
    return `${what} (${reference})${details}${hintOf(error)}`;
  }
  if (error instanceof OAuthError) {
    if (error.error === 'invalid_grant') return `The sign-in was refused: ${error.description ?? 'the token is no longer valid'}. Sign in again with \`apctl login\`.`;
    if (error.error === 'unknown_realm') return 'No such realm at this API: check --realm (your organization\'s name) and --api.';
    return `The sign-in failed: ${error.description ?? error.error}`;
  }
  if (error instanceof ConnectionError || error instanceof UsageError) return error.message;
  if (error instanceof Error && error.name === 'CommanderError') return error.message;
  return `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
}

function hintOf(error: ApiError): string {
  if (error.status === 401) return '\nSign in again with `apctl login`.';
  if (error.status === 403) return '\nYour role does not allow this: ask an ADMIN of the organization.';
  return '';
}

/** Prints data: JSON (two-space indents) with --json, else the readable text. */
export function print(json: boolean, data: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text()}\n`);
}

/** Status lines go to stderr, so stdout carries only the data. */
export const note = (line: string) => process.stderr.write(`${line}\n`);
