import type { AuditEvent } from '../../domain/audit/audit-event';
import type { AuditEventResponse } from './audit-trail.responses';

/** An audit event as the API answers it (`audit-trail.responses.ts`). */
export function toAuditEventResponse(event: AuditEvent): AuditEventResponse {
  return {
    id: event.id,
    at: event.at,
    actor: { uuid: event.actor?.uuid ?? null, email: event.actor?.email ?? null },
    action: event.action,
    resource: { type: event.resource.type, uuid: event.resource.uuid },
    requestId: event.requestId ?? null,
    // fast-json-patch's operation types are closed interfaces; the schema's patch operation is open to extensions.
    ...(event.changes ? { changes: event.changes as AuditEventResponse['changes'] } : {}),
  };
}
