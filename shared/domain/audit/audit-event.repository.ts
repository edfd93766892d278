import { config } from '../../kernel/config';
import { keys } from '../../adapters/store/keys';
import { getItem, type TableWrite } from '../../adapters/store/table';
import { auditContext, type KeyedRequest } from './audit-context';
import { auditEventOf, type AuditedChange, type AuditEvent } from './audit-event';
import type { AuditResourceType } from './audit-kinds';

/** Audit events in the store: the writes that record a change in its own transaction, and the keyed requests' changes. */

/**
 * The writes that record `change`, for the transaction that makes it: its audit event and, inside a
 * keyed request whose route can replay (`KeyedRequest`), which resource that request changed.
 */
export function auditWrites(change: AuditedChange): TableWrite[] {
  const event = auditEventOf(change);
  const { keyedRequest } = auditContext();
  return [
    { Put: { Item: auditItem(change.orgUuid, event), ConditionExpression: 'attribute_not_exists(PK)' } },
    ...(keyedRequest ? [keyedRequestWrite(keyedRequest, change.resource)] : []),
  ];
}

/** How long a keyed request's change is remembered: as long as Powertools keeps the key's answer. */
export const KEYED_REQUEST_SECONDS = 24 * 60 * 60;

/** What a keyed request changed, as the change's transaction recorded it. */
export interface KeyedChange {
  fingerprint: string;
  resource: { type: AuditResourceType; uuid: string };
}

function keyedRequestWrite(request: KeyedRequest, resource: KeyedChange['resource']): TableWrite {
  const change: KeyedChange = { fingerprint: request.fingerprint, resource };
  return {
    Put: {
      Item: {
        ...keys.keyedChange(request.userUuid, request.recordId),
        type: 'KEYED_CHANGE',
        ...change,
        ttl: Math.floor(Date.now() / 1000) + KEYED_REQUEST_SECONDS,
      },
    },
  };
}

/** What the keyed request `recordId` of a user changed, if its change committed. */
export async function readKeyedChange(userUuid: string, recordId: string): Promise<KeyedChange | undefined> {
  return getItem<KeyedChange>(keys.keyedChange(userUuid, recordId), { consistent: true });
}

export function auditItem(orgUuid: string, event: AuditEvent): Record<string, unknown> {
  const expiresAt = Math.floor(Date.parse(event.at) / 1000) + config().auditRetentionDays * 86_400;
  // Flat attributes beside the event let a listing filter by actor and resource without parsing it.
  return {
    ...keys.auditEvent(orgUuid, event.at, event.id),
    ...keys.auditEventOfResource(orgUuid, event.resource.uuid, event.at, event.id),
    type: 'AUDIT_EVENT',
    ...event,
    // The change-event publisher reads the organization from the stream's image of this item.
    orgUuid,
    actorUuid: event.actor.uuid ?? '-',
    resourceType: event.resource.type,
    resourceUuid: event.resource.uuid,
    ttl: expiresAt,
  };
}
