import type { AuditAction } from './audit-kinds';

/**
 * The change events' types (docs/api/events.md#event-types): one per audit action, named
 * `<resource>.<action>`; a CloudEvent's `type` is the stack's prefix, a dot and this name. No
 * dependencies, so the route catalogue and the API description can import them.
 */
export const eventTypeOfAction = {
  AGENT_CREATED: 'agent.created',
  AGENT_UPDATED: 'agent.updated',
  AGENT_RESTORED: 'agent.restored',
  SUPERVISOR_CREATED: 'supervisor.created',
  SUPERVISOR_UPDATED: 'supervisor.updated',
  SUPERVISOR_RESTORED: 'supervisor.restored',
  USER_CREATED: 'user.created',
  USER_UPDATED: 'user.updated',
  USER_DELETED: 'user.deleted',
  USER_REACTIVATED: 'user.reactivated',
  USER_LOCKED_OUT: 'user.locked_out',
  USER_UNLOCKED: 'user.unlocked',
  CONFIGURATION_SAVED: 'configuration.saved',
  BULK_JOB_STARTED: 'bulk.job.started',
  BULK_JOB_FINISHED: 'bulk.job.completed',
  WEBHOOK_CREATED: 'webhook.created',
  WEBHOOK_UPDATED: 'webhook.updated',
  WEBHOOK_DELETED: 'webhook.deleted',
  WEBHOOK_SECRET_ROTATED: 'webhook.secret_rotated',
  WEBHOOK_DISABLED: 'webhook.disabled',
} as const satisfies Record<AuditAction, string>;
  SCIM_TOKEN_ISSUED: 'scim.token.issued',
  SCIM_TOKEN_REVOKED: 'scim.token.revoked',

export type ChangeEventType = (typeof eventTypeOfAction)[AuditAction];

/** The ping `POST …/webhooks/{id}/test` sends: delivered to that one subscription, never published. */
export const PING_EVENT_TYPE = 'webhook.ping';

/** Every type a subscription may ask for (besides `*`, all of them). */
export const changeEventTypes = Object.values(eventTypeOfAction) as ChangeEventType[];
