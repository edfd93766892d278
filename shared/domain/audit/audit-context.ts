import { AsyncLocalStorage } from 'node:async_hooks';

/** Who is acting and in which request: what every audit event records of its cause. */
export interface AuditActor {
  uuid: string | null;
  email: string | null;
}

/**
 * A request sent with an `Idempotency-Key` whose change must be findable after a crash: the change's
 * transaction records it (`keyedRequestWrite`), so a retry finds what the first attempt did.
 */
export interface KeyedRequest {
  userUuid: string;
  /** The key's digest: the record's place in the user's partition. */
  recordId: string;
  /** The digest of the request (method, path and query, body), to refuse the key on another request. */
  fingerprint: string;
}

export interface AuditContext {
  actor: AuditActor;
  /** The request's `x-request-id` (for a bulk job's changes, the id of the request that started it). */
  requestId: string | null;
  keyedRequest?: KeyedRequest;
}

/** Outside any request or job (the operator CLI, seeding): no user acted. */
const OPERATOR: AuditContext = { actor: { uuid: null, email: null }, requestId: null };

const storage = new AsyncLocalStorage<AuditContext>();

/**
 * Runs `work` with `context` as the cause of every change it makes. Set by the authenticated route
 * chain (the caller and the request id) and by the bulk worker (the job's author and request); the
 * in-process gateway serves requests concurrently, so the context follows the async call chain
 * rather than living in a module variable.
 */
export function withAuditContext<T>(context: AuditContext, work: () => Promise<T>): Promise<T> {
  return storage.run(context, work);
}

/** The cause of the changes being made now. */
export const auditContext = (): AuditContext => storage.getStore() ?? OPERATOR;
