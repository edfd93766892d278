import { config } from '../../kernel/config';
import { REDACTED, type AuditEvent, type PatchOperation } from './audit-event';
import type { AuditResourceType } from './audit-kinds';
import { eventTypeOfAction, PING_EVENT_TYPE } from './event-types';

/**
 * A change as a CloudEvents 1.0 event in the structured JSON form (docs/api/events.md#the-event):
 * what EventBridge and webhooks receive. Built from the audit event its change's transaction wrote,
 * so `id` is that event's id whichever path (stream, replay, redelivery) carries it.
 */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  /** The organization: `/org/<uuid>`. */
  source: string;
  /** `<prefix>.<resource>.<action>`, e.g. `com.agentplatform.agent.updated`. */
  type: string;
  /** The resource's path under its organization, e.g. `env/<uuid>/bot/<uuid>/agents/<uuid>`. */
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  /** Orders the events of one resource: compare as strings (the change's time, then its event id). */
  sequence: string;
  data: ChangeData;
}

export interface ChangeData {
  resource: { type: AuditResourceType | 'WEBHOOK_PING'; uuid: string };
  /** A supervisor's or agent's bot and environment. */
  environmentUuid?: string;
  botUuid?: string;
  actor: { uuid: string | null; email: string | null };
  requestId: string | null;
  /** What changed, as an RFC 6902 patch; secrets only as `[REDACTED]`. */
  changes?: PatchOperation[];
  /** Set when the patch was left out to keep the event within EventBridge's 256 KB. */
  changesOmitted?: true;
}

/** The source of an organization's events. */
export const eventSource = (orgUuid: string) => `/org/${orgUuid}`;

/** The full type of a short one (`agent.updated`) under the stack's prefix. */
export const fullEventType = (short: string) => `${config().events.typePrefix}.${short}`;

const collection: Record<AuditResourceType, string> = {
  AGENT: 'agents',
  SUPERVISOR: 'supervisors',
  USER: 'users',
  CONFIGURATION: 'users',
  BULK_JOB: 'users/bulk-jobs',
  WEBHOOK: 'webhooks',
  SCIM_TOKEN: 'scim-tokens',
  IDENTITY_PROVIDER: 'identity-providers',
};

function subjectOf(event: AuditEvent): string {
  const { type, uuid } = event.resource;
  const base = `${collection[type]}/${uuid}`;
  if (type === 'CONFIGURATION') return `${base}/configurations`;
  return event.place ? `env/${event.place.environmentUuid}/bot/${event.place.botUuid}/${base}` : base;
}

/** A patch value's last path token names a secret: its value never leaves, whatever wrote the event. */
const SECRET_NAME = /(password|secret|token)$/i;

/**
 * The patch as an event may carry it: every value at a secret's path (and a configuration entry's
 * value) replaced by `[REDACTED]`. The audit event already redacts them; this holds even if a
 * writer forgot.
 */
export function scrubbed(type: AuditResourceType, changes: readonly PatchOperation[]): PatchOperation[] {
  return changes.map((operation) => {
    const last = operation.path.split('/').pop() ?? '';
    const secret = SECRET_NAME.test(last) || (type === 'CONFIGURATION' && last === 'value');
    if (!secret || !('value' in operation)) return scrubValue(operation);
    return { ...operation, value: REDACTED } as PatchOperation;
  });
}

/** An `add` of a whole object (a creation) carries secrets inside its value. */
function scrubValue(operation: PatchOperation): PatchOperation {
  if (!('value' in operation) || typeof operation.value !== 'object' || operation.value === null) return operation;
  return { ...operation, value: scrubObject(operation.value as Record<string, unknown>) } as PatchOperation;
}

function scrubObject(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubObject);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, SECRET_NAME.test(name) ? REDACTED : scrubObject(inner)]));
}

/** The CloudEvent of an audit event of `orgUuid`. */
export function cloudEventOf(orgUuid: string, event: AuditEvent): CloudEvent {
  return {
    specversion: '1.0',
    id: event.id,
    source: eventSource(orgUuid),
    type: fullEventType(eventTypeOfAction[event.action]),
    subject: subjectOf(event),
    time: event.at,
    datacontenttype: 'application/json',
    sequence: `${event.at}#${event.id}`,
    data: {
      resource: { type: event.resource.type, uuid: event.resource.uuid },
      ...(event.place ? { environmentUuid: event.place.environmentUuid, botUuid: event.place.botUuid } : {}),
      actor: { uuid: event.actor?.uuid ?? null, email: event.actor?.email ?? null },
      requestId: event.requestId ?? null,
      ...(event.changes ? { changes: scrubbed(event.resource.type, event.changes) } : {}),
    },
  };
}

/** The ping a subscription's test sends: shaped as a change event, of type `<prefix>.webhook.ping`. */
export function pingEvent(orgUuid: string, webhookId: string, id: string, actor: ChangeData['actor'], requestId: string | null): CloudEvent {
  const time = new Date().toISOString();
  return {
    specversion: '1.0',
    id,
    source: eventSource(orgUuid),
    type: fullEventType(PING_EVENT_TYPE),
    subject: `webhooks/${webhookId}`,
    time,
    datacontenttype: 'application/json',
    sequence: `${time}#${id}`,
    data: { resource: { type: 'WEBHOOK_PING', uuid: webhookId }, actor, requestId },
  };
}
