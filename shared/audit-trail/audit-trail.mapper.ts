import type { AuditEvent } from '../audit/audit-event';

/** An audit event as the API answers it: only these fields leave (never the item's keys, ttl or filter attributes). */
export interface AuditEventResponse {
  id: string;
  at: string;
  actor: { uuid: string | null; email: string | null };
  action: AuditEvent['action'];
  resource: { type: AuditEvent['resource']['type']; uuid: string };
  requestId: string | null;
  changes?: AuditEvent['changes'];
}

export function toAuditEventResponse(event: AuditEvent): AuditEventResponse {
  return {
    id: event.id,
    at: event.at,
    actor: { uuid: event.actor?.uuid ?? null, email: event.actor?.email ?? null },
    action: event.action,
    resource: { type: event.resource.type, uuid: event.resource.uuid },
    requestId: event.requestId ?? null,
    ...(event.changes ? { changes: event.changes } : {}),
  };
}
