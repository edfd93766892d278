import * as z from 'zod/mini';
import { sharedResponses } from '../../kernel/schemas/responses';
import { userSchemas } from '../../domain/users/user.schemas';
import { MAX_PENDING_PER_ORG, MAX_PENDING_PER_WEBHOOK, SEND_WINDOW_SECONDS, SENDS_PER_WINDOW } from '../../domain/webhooks/webhook-limits';
import { webhookResponses } from '../../domain/webhooks/webhook.responses';
import { webhookSchemas } from '../../domain/webhooks/webhook.schemas';
import { operationsUnder, type ErrorStatuses, type Outcome } from './operation';
import { groupDigits } from '../../kernel/text/numbers';

/**
 * An organization's webhook subscriptions to its change events (docs/api/events.md#webhooks), ADMIN
 * only; served by the `users` function, beside the organization's audit trail they deliver.
 */
const webhook = operationsUnder('users', 'user', '/org/{orgUUID}', { access: { org: 'admin' } });

const example = {
  url: 'https://hooks.example.com/agent-platform',
  eventTypes: ['com.agentplatform.agent.updated', 'com.agentplatform.user.deleted'],
  enabled: true,
  excludeActors: [],
};
const secretNote = 'The answer holds the signing secret (`secret`, `whsec_…`): shown this once, keep it; it is marked `Cache-Control: no-store`.';

const limitsNote =
  `At most ${SENDS_PER_WINDOW} tests and redeliveries of a subscription every ${SEND_WINDOW_SECONDS} seconds (429 \`RATE_LIMITED\`), and none while the subscription has ` +
  `${groupDigits(MAX_PENDING_PER_WEBHOOK)} deliveries pending or its organization ${groupDigits(MAX_PENDING_PER_ORG)} (429 \`WEBHOOK_BACKLOG_FULL\`); either with Retry-After.`;

/** The 429 a test or redelivery answers itself; API Gateway's throttling answers its own body under the same status. */
const sendRefused = {
  status: 429 as const,
  description: 'Too many tests and redeliveries of the subscription (`RATE_LIMITED`), or its backlog is full (`WEBHOOK_BACKLOG_FULL`): retry after Retry-After',
  json: () => z.union([sharedResponses().errorBodySchema, sharedResponses().gatewayErrorSchema]),
  headers: ['Retry-After'],
} satisfies Outcome;
/** The common error statuses but 429, which `sendRefused` documents. */
const sendErrors: ErrorStatuses = { only: [400, 401, 403, 404, 409, 422, 500, 503] };

export const webhooksApi = {
  create: webhook({
    id: 'webhooks.create',
    method: 'POST',
    path: '/webhooks',
    request: { path: () => userSchemas().orgPathSchema, body: () => webhookSchemas().webhookBodySchema },
    summary: 'Subscribe a URL to change events (ADMIN only)',
    description: `An https URL of a public host on port 443 or 8443 (at most 2,048 characters), the event types wanted (the events' \`type\`, or its alias without the stack's prefix) or ["*"]; at most 20 per organization. ${secretNote}`,
    responses: [{ status: 201, description: 'The subscription, with its secret', json: () => webhookResponses().webhookWithSecretSchema, headers: ['Cache-Control', 'Pragma'] }],
    example,
  }),
  list: webhook({
    id: 'webhooks.list',
    method: 'GET',
    path: '/webhooks',
    request: { path: () => userSchemas().orgPathSchema },
    summary: "The organization's webhook subscriptions (ADMIN only)",
    responses: [{ status: 200, description: 'Every subscription (at most 20)', json: () => z.array(webhookResponses().webhookSchema) }],
  }),
  get: webhook({
    id: 'webhooks.get',
    method: 'GET',
    path: '/webhooks/{webhookId}',
    request: { path: () => webhookSchemas().webhookPathSchema },
    summary: 'A webhook subscription, with why it was disabled if it was (ADMIN only)',
    responses: [{ status: 200, description: 'The subscription', json: () => webhookResponses().webhookSchema }],
  }),
  update: webhook({
    id: 'webhooks.update',
    method: 'PUT',
    path: '/webhooks/{webhookId}',
    request: { path: () => webhookSchemas().webhookPathSchema, body: () => webhookSchemas().webhookBodySchema },
    summary: 'Replace a webhook subscription (ADMIN only)',
    description: 'Every field is replaced; `enabled: true` on a disabled subscription starts it afresh.',
    responses: [{ status: 200, description: 'The subscription', json: () => webhookResponses().webhookSchema }],
    example,
  }),
  delete: webhook({
    id: 'webhooks.delete',
    method: 'DELETE',
    path: '/webhooks/{webhookId}',
    request: { path: () => webhookSchemas().webhookPathSchema },
    summary: 'Delete a webhook subscription (ADMIN only)',
    responses: [{ status: 204, description: 'Deleted; its pending deliveries are dropped' }],
  }),
  rotate: webhook({
    id: 'webhooks.rotate',
    method: 'POST',
    path: '/webhooks/{webhookId}/rotate',
    request: { path: () => webhookSchemas().webhookPathSchema },
    summary: "Rotate a subscription's signing secret (ADMIN only)",
    description: `The old secret keeps signing beside the new one for 24 hours. ${secretNote}`,
    responses: [{ status: 200, description: 'The subscription, with its new secret', json: () => webhookResponses().webhookWithSecretSchema, headers: ['Cache-Control', 'Pragma'] }],
  }),
  deliveries: webhook({
    id: 'webhooks.deliveries',
    method: 'GET',
    path: '/webhooks/{webhookId}/deliveries',
    request: { path: () => webhookSchemas().webhookPathSchema, query: () => webhookSchemas().deliveriesQuerySchema },
    summary: "A subscription's newest delivery attempts (ADMIN only)",
    responses: [{ status: 200, description: 'The newest attempts first (kept 30 days)', json: () => z.array(webhookResponses().deliveryAttemptSchema) }],
  }),
  redeliver: webhook({
    id: 'webhooks.redeliver',
    method: 'POST',
    path: '/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    request: { path: () => webhookSchemas().deliveryPathSchema },
    summary: "Send a delivery's event again (ADMIN only)",
    description: `The same event with the same \`webhook-id\`, as a delivery of its own. ${limitsNote}`,
    responses: [{ status: 202, description: 'Scheduled', json: () => webhookResponses().deliveryScheduledSchema }, sendRefused],
    errors: sendErrors,
  }),
  test: webhook({
    id: 'webhooks.test',
    method: 'POST',
    path: '/webhooks/{webhookId}/test',
    request: { path: () => webhookSchemas().webhookPathSchema },
    summary: 'Send a ping event to a subscription (ADMIN only)',
    description: limitsNote,
    responses: [{ status: 202, description: 'Scheduled', json: () => webhookResponses().deliveryScheduledSchema }, sendRefused],
    errors: sendErrors,
  }),
};
