import { randomUUID } from 'node:crypto';
import type * as JsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { auditContext, type AuditActor } from './audit-context';
import type { AuditAction, AuditResourceType } from './audit-kinds';
import { requireLazily } from '../../kernel/lazy';

/**
 * Audit events: who changed what, when, in which request. An event is a table item written
 * in the transaction of the change it records, so neither exists without the other
 * (`audit-event.repository.ts`); it expires after the configured retention (`AUDIT_RETENTION_DAYS`,
 * 400 days by default) through the table's TTL.
 */

export { auditActions, auditResourceTypes, type AuditAction, type AuditResourceType } from './audit-kinds';

/** One RFC 6902 operation. */
export type PatchOperation = Operation;

export interface AuditEvent {
  id: string;
  at: string;
  actor: AuditActor;
  action: AuditAction;
  resource: { type: AuditResourceType; uuid: string };
  requestId: string | null;
  /** For changes of agents, supervisors and users: what changed, as an RFC 6902 patch. */
  changes?: PatchOperation[];
  /** Where a supervisor or agent lives (its bot and environment), for its change event's subject. */
  place?: ResourcePlace;
}

/** The bot (and its environment) a supervisor or agent belongs to. */
export interface ResourcePlace {
  environmentUuid: string;
  botUuid: string;
}

export interface AuditedChange {
  orgUuid: string;
  action: AuditAction;
  resource: { type: AuditResourceType; uuid: string };
  changes?: PatchOperation[];
  /** When the change happened (defaults to now); also the event's place in the listing. */
  at?: string;
  place?: ResourcePlace;
}

/** What stands for a secret's value in `changes`: that it changed, never what it is. */
export const REDACTED = '[REDACTED]';

/**
 * fast-json-patch, loaded by the first change that compares two versions: creations, deletions and the
 * functions that only read need none of it. A package left out of the functions' bundles, its own file
 * in the functions that load it (docs/decisions/lighter-functions.md).
 */
const jsonPatch = /* @__PURE__ */ requireLazily<typeof JsonPatch>('fast-json-patch', () => require('fast-json-patch')); // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose

/**
 * The RFC 6902 patch turning `before` into `after` (an `add` of every field for a creation, with
 * `before` undefined), plus an `add` of `REDACTED` for each secret that changed (a password).
 */
export function changesBetween(before: object | undefined, after: object, changedSecrets: readonly string[] = []): PatchOperation[] {
  const patch = before === undefined ? [{ op: 'add', path: '', value: after } as Operation] : jsonPatch().compare(before, after);
  return [...patch, ...changedSecrets.map((name): Operation => ({ op: 'add', path: `/${escapePointer(name)}`, value: REDACTED }))];
}

const escapePointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The event of a change, attributed to the current actor and request (`withAuditContext`). */
export function auditEventOf(change: AuditedChange): AuditEvent {
  const { actor, requestId } = auditContext();
  return {
    id: randomUUID(),
    at: change.at ?? new Date().toISOString(),
    actor,
    action: change.action,
    resource: change.resource,
    requestId,
    ...(change.changes ? { changes: change.changes } : {}),
    ...(change.place ? { place: change.place } : {}),
  };
}
