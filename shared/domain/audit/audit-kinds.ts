/** What audit events name: the kinds of resource and the actions (no dependencies, so the API description can import them). */

export const auditResourceTypes = ['AGENT', 'SUPERVISOR', 'USER', 'CONFIGURATION', 'BULK_JOB', 'WEBHOOK', 'SCIM_TOKEN', 'IDENTITY_PROVIDER'] as const;
export type AuditResourceType = (typeof auditResourceTypes)[number];

export const auditActions = [
  'AGENT_CREATED',
  'AGENT_UPDATED',
  'AGENT_RESTORED',
  'SUPERVISOR_CREATED',
  'SUPERVISOR_UPDATED',
  'SUPERVISOR_RESTORED',
  'USER_CREATED',
  'USER_UPDATED',
  'USER_DELETED',
  'USER_REACTIVATED',
  'USER_LOCKED_OUT',
  'USER_UNLOCKED',
  'OFFLINE_SESSION_REVOKED',
  'CONFIGURATION_SAVED',
  'BULK_JOB_STARTED',
  'BULK_JOB_FINISHED',
  'WEBHOOK_CREATED',
  'WEBHOOK_UPDATED',
  'WEBHOOK_DELETED',
  'WEBHOOK_SECRET_ROTATED',
  'WEBHOOK_DISABLED',
  'SCIM_TOKEN_ISSUED',
  'SCIM_TOKEN_REVOKED',
  'IDENTITY_PROVIDER_CREATED',
  'IDENTITY_PROVIDER_UPDATED',
  'IDENTITY_PROVIDER_DELETED',
  'USER_IDENTITY_PROVIDER_LINKED',
  'USER_DEVICE_AUTHORIZED',
] as const;
export type AuditAction = (typeof auditActions)[number];
