import { EVENT_TYPE_PREFIX_PATTERN } from '../../kernel/config';
import type { AuditAction } from './audit-kinds';

/**
 * The change events' types (docs/api/events.md#event-types): one per audit action, named
 * `<resource>.<action>`; a CloudEvent's `type` is the stack's prefix, a dot and this name. Nothing
 * but the kernel's prefix pattern, so the route catalogue and the API description can import them.
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
  OFFLINE_SESSION_REVOKED: 'user.offline_session_revoked',
  CONFIGURATION_SAVED: 'configuration.saved',
  BULK_JOB_STARTED: 'bulk.job.started',
  BULK_JOB_FINISHED: 'bulk.job.completed',
  WEBHOOK_CREATED: 'webhook.created',
  WEBHOOK_UPDATED: 'webhook.updated',
  WEBHOOK_DELETED: 'webhook.deleted',
  WEBHOOK_SECRET_ROTATED: 'webhook.secret_rotated',
  WEBHOOK_DISABLED: 'webhook.disabled',
  SCIM_TOKEN_ISSUED: 'scim.token.issued',
  SCIM_TOKEN_REVOKED: 'scim.token.revoked',
  IDENTITY_PROVIDER_CREATED: 'identity-provider.created',
  IDENTITY_PROVIDER_UPDATED: 'identity-provider.updated',
  IDENTITY_PROVIDER_DELETED: 'identity-provider.deleted',
  USER_IDENTITY_PROVIDER_LINKED: 'user.identity-provider.linked',
  USER_IDENTITY_PROVIDER_UNLINKED: 'user.identity-provider.unlinked',
  USER_IDENTITY_PROVIDER_SIGNED_IN: 'user.identity-provider.signed_in',
  USER_IDENTITY_PROVIDER_REFUSED: 'user.identity-provider.refused',
  USER_DEVICE_AUTHORIZED: 'user.device_authorized',
} as const satisfies Record<AuditAction, string>;

export type ChangeEventType = (typeof eventTypeOfAction)[AuditAction];

/** The ping `POST …/webhooks/{id}/test` sends: delivered to that one subscription, never published. */
export const PING_EVENT_TYPE = 'webhook.ping';

/** Every type a subscription may ask for (besides `*`, all of them). */
export const changeEventTypes = Object.values(eventTypeOfAction) as ChangeEventType[];

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A full type as events carry it, under any prefix a stack may be deployed with
 * (`com.agentplatform.user.created`); which prefix is this stack's is known only at run time.
 */
export const fullEventTypePattern = new RegExp(
  `^${EVENT_TYPE_PREFIX_PATTERN.source.slice(1, -1)}\\.(?:${changeEventTypes.map(escaped).join('|')})$`,
);

/** The type without `prefix` of a full type under it, or undefined when it is not one of them. */
export function shortEventType(type: string, prefix: string): ChangeEventType | undefined {
  if (!type.startsWith(`${prefix}.`)) return undefined;
  const short = type.slice(prefix.length + 1);
  return changeEventTypes.find((known) => known === short);
}
