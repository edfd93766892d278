import { isThrottled } from '../../kernel/retry';

/**
 * What the mailer may say about a failed send. SDK and network error messages can quote the recipient
 * or the request, so only an error's name or code leaves this module.
 */

// Duck-typed, not `instanceof Error`: errors from another realm (Node's sockets under jest) are errors too.
function fieldsOf(error: unknown): { name?: unknown; code?: unknown; status?: unknown } {
  if (typeof error !== 'object' || error === null) return {};
  const { name, code, $metadata } = error as { name?: unknown; code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  return { name, code, status: $metadata?.httpStatusCode };
}

/** The error's name or code (`TooManyRequestsException`, `ECONNREFUSED`), never its message. */
export function reasonOf(error: unknown): string {
  const { name, code } = fieldsOf(error);
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) && (name === 'Error' || name === undefined)) return code;
  return typeof name === 'string' && /^[A-Za-z][A-Za-z0-9_.]*$/.test(name) ? name : 'UnknownError';
}

const networkErrors = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'TimeoutError', 'RequestTimeout']);

/**
 * Whether a send that failed may succeed later, unchanged: SES refused for its rate, failed on its side
 * (5xx) or never answered (a network error). A refusal of the message itself (`MessageRejected`, an
 * unverified sender) is final.
 */
export function isTransient(error: unknown): boolean {
  if (isThrottled(error)) return true;
  const { status } = fieldsOf(error);
  const fault = typeof error === 'object' && error !== null ? (error as { $fault?: unknown }).$fault : undefined;
  return fault === 'server' || (typeof status === 'number' && status >= 500) || networkErrors.has(reasonOf(error));
}
