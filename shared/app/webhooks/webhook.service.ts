import { randomUUID } from 'node:crypto';
import { auditContext } from '../../domain/audit/audit-context';
import { changesBetween, REDACTED, type PatchOperation } from '../../domain/audit/audit-event';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import type { AuditAction } from '../../domain/audit/audit-kinds';
import { pingEvent, type CloudEvent } from '../../domain/audit/cloud-event';
import { changeEventTypes, shortEventType } from '../../domain/audit/event-types';
import { config } from '../../kernel/config';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../kernel/errors';
import type { OrgScope } from '../../domain/users/org-scope';
import { newDelivery, scheduleSend } from '../../domain/webhooks/delivery-schedule';
import { newSecret, rotated } from '../../domain/webhooks/signing-secrets';
import { AddressRefused, webhookHttp } from './webhook-http.port';
import type { AttemptRecord, DeliveryRecord, WebhookRecord } from '../../domain/webhooks/webhook.entities';
import { toWebhookResponse } from '../../domain/webhooks/webhook.mapper';
import {
  deleteWebhook as removeWebhook,
  getDelivery,
  getWebhook,
  insertWebhook,
  listAttempts,
  listWebhooks as readWebhooks,
  MAX_WEBHOOKS,
  replaceWebhook,
} from '../../domain/webhooks/webhook.repository';
import type { WebhookBody } from '../../domain/webhooks/webhook.schemas';

/** An organization's webhook subscriptions (docs/api/events.md); the handler authorizes an ADMIN. */

const WEBHOOK_NOT_FOUND = 'The webhook subscription was not found';

/** The URL as a subscription may keep it: its shape, then every address its host resolves to. */
async function checkedUrl(raw: string): Promise<string> {
  const { allowLoopbackHttp } = config().webhooks;
  try {
    return (await webhookHttp.checkReceiver(raw, allowLoopbackHttp)).toString();
  } catch (error) {
    if (!(error instanceof AddressRefused)) throw error;
    throw new ValidationError({ details: [{ fieldName: 'url', message: error.message, errorCode: 'WEBHOOK_URL_REFUSED' }] });
  }
}

/**
 * The event types as a subscription keeps them: without the stack's prefix, each once, `["*"]` alone
 * when it names every type. A full type must carry the prefix this stack's events carry.
 */
function normalizedTypes(types: readonly string[]): string[] {
  if (types.includes('*')) return ['*'];
  const { typePrefix } = config().events;
  const issues: FieldIssue[] = [];
  const short = types.map((type, index) => {
    if (changeEventTypes.some((known) => known === type)) return type;
    const alias = shortEventType(type, typePrefix);
    if (alias) return alias;
    const named = changeEventTypes.find((known) => type.endsWith(`.${known}`)) ?? 'user.created';
    issues.push({ fieldName: `eventTypes.${index}`, errorCode: 'FIELD_INVALID', message: `Event types here begin with ${typePrefix}: use ${typePrefix}.${named}, or its alias ${named}` });
    return type;
  });
  if (issues.length > 0) throw new ValidationError({ details: issues });
  return [...new Set(short)];
}

/** A subscription's URL as audit and change events show it: its origin (scheme, host, port), since the rest may be a secret (a chat hook's token). */
const urlOrigin = (url: string) => new URL(url).origin;

function audited(webhook: WebhookRecord, action: AuditAction, before: WebhookRecord | undefined, extra: PatchOperation[] = []) {
  const view = (record: WebhookRecord) => {
    const { secretCreatedAt: _secret, previousSecretExpiresAt: _previous, droppedEvents: _dropped, lastDroppedAt: _lastDropped, ...shown } = toWebhookResponse(record);
    return { ...shown, url: urlOrigin(record.url) };
  };
  // A URL changed behind the same origin still shows as changed.
  const urlChanged = before !== undefined && before.url !== webhook.url && urlOrigin(before.url) === urlOrigin(webhook.url);
  const url: PatchOperation[] = urlChanged ? [{ op: 'replace', path: '/url', value: urlOrigin(webhook.url) }] : [];
  return auditWrites({
    orgUuid: webhook.orgUuid,
    action,
    resource: { type: 'WEBHOOK', uuid: webhook.id },
    changes: action === 'WEBHOOK_DELETED' ? [{ op: 'remove', path: '' }] : [...changesBetween(before && view(before), view(webhook)), ...url, ...extra],
    at: webhook.updatedAt,
  });
}

async function found(scope: OrgScope, webhookId: string): Promise<WebhookRecord> {
  const webhook = await getWebhook(scope.orgUuid, webhookId);
  if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  return webhook;
}

export async function createWebhook(scope: OrgScope, body: WebhookBody): Promise<{ webhook: WebhookRecord; secret: string }> {
  const now = new Date().toISOString();
  const secret = newSecret();
  const eventTypes = normalizedTypes(body.eventTypes);
  const webhook: WebhookRecord = {
    id: randomUUID(),
    orgUuid: scope.orgUuid,
    url: await checkedUrl(body.url),
    eventTypes,
    enabled: body.enabled,
    excludeActors: [...new Set(body.excludeActors)],
    ...(body.description !== undefined ? { description: body.description } : {}),
    secrets: [{ value: secret, createdAt: now }],
    createdAt: now,
    updatedAt: now,
  };
  if (!(await insertWebhook(webhook, audited(webhook, 'WEBHOOK_CREATED', undefined, [{ op: 'add', path: '/secret', value: REDACTED }])))) {
    throw new ValidationError({ details: [
      { fieldName: 'url', message: `The organization has ${MAX_WEBHOOKS} webhook subscriptions, the most it may have: delete one first`, errorCode: 'WEBHOOK_LIMIT' },
    ] });
  }
  return { webhook, secret };
}

export async function listWebhooks(scope: OrgScope): Promise<WebhookRecord[]> {
  return readWebhooks(scope.orgUuid);
}

export async function readWebhook(scope: OrgScope, webhookId: string): Promise<WebhookRecord> {
  return found(scope, webhookId);
}

/** Replaces the subscription's fields; enabling it again clears why it was disabled and its failures. */
export async function updateWebhook(scope: OrgScope, webhookId: string, body: WebhookBody): Promise<WebhookRecord> {
  const current = await found(scope, webhookId);
  const eventTypes = normalizedTypes(body.eventTypes);
  const url = body.url === current.url ? current.url : await checkedUrl(body.url);
  const now = new Date().toISOString();
  const { failingSince, disabledAt, disabledReason, description: _description, ...kept } = current;
  // Enabled, it keeps its failures; enabled again, it starts afresh; disabled, it says since when (and why, if automatically).
  const health = body.enabled
    ? current.enabled && failingSince ? { failingSince } : {}
    : current.enabled ? { disabledAt: now } : { ...(disabledAt ? { disabledAt } : {}), ...(disabledReason ? { disabledReason } : {}) };
  const next: WebhookRecord = {
    ...kept,
    ...health,
    url,
    eventTypes,
    enabled: body.enabled,
    excludeActors: [...new Set(body.excludeActors)],
    ...(body.description !== undefined ? { description: body.description } : {}),
    updatedAt: now,
  };
  if (!(await replaceWebhook(next, current.updatedAt, audited(next, 'WEBHOOK_UPDATED', current)))) {
    throw new ConflictError({ code: 'CHANGED_MEANWHILE', message: 'The subscription changed while this ran; read it and try again' });
  }
  return next;
}

export async function deleteWebhook(scope: OrgScope, webhookId: string): Promise<void> {
  const current = await found(scope, webhookId);
  const gone = { ...current, updatedAt: new Date().toISOString() };
  if (!(await removeWebhook(scope.orgUuid, webhookId, audited(gone, 'WEBHOOK_DELETED', current)))) throw new NotFoundError(WEBHOOK_NOT_FOUND);
}

/** A new signing secret; the current one keeps signing beside it for the overlap (24 h). */
export async function rotateSecret(scope: OrgScope, webhookId: string): Promise<{ webhook: WebhookRecord; secret: string }> {
  const current = await found(scope, webhookId);
  const now = new Date();
  const secret = newSecret();
  const next: WebhookRecord = { ...current, secrets: rotated(current.secrets, secret, now, config().webhooks.secretOverlapSeconds), updatedAt: now.toISOString() };
  if (!(await replaceWebhook(next, current.updatedAt, audited(next, 'WEBHOOK_SECRET_ROTATED', current, [{ op: 'replace', path: '/secret', value: REDACTED }])))) {
    throw new ConflictError({ code: 'CHANGED_MEANWHILE', message: 'The subscription changed while this ran; try again' });
  }
  return { webhook: next, secret };
}

/** The newest attempts of the subscription's deliveries. */
export async function listDeliveryAttempts(scope: OrgScope, webhookId: string, limit: number): Promise<AttemptRecord[]> {
  return (await deliveryAttemptsPage(scope, webhookId, limit)).attempts;
}

/** A page of a subscription's attempts, newest first, after the sort key `after` when given, and where the next page starts. */
export async function deliveryAttemptsPage(scope: OrgScope, webhookId: string, limit: number, after?: string): Promise<{ attempts: AttemptRecord[]; next?: string }> {
  await found(scope, webhookId);
  return listAttempts(scope.orgUuid, webhookId, limit, after);
}

function enabledOrRefused(webhook: WebhookRecord): void {
  if (!webhook.enabled) throw new ConflictError('The subscription is disabled: enable it (PUT with "enabled": true) first');
}

/** Sends a delivery's event again, as a delivery of its own (same event, same `webhook-id`), within the caps and the rate of `scheduleSend`. */
export async function redeliver(scope: OrgScope, webhookId: string, deliveryId: string): Promise<DeliveryRecord> {
  const webhook = await found(scope, webhookId);
  const original = await getDelivery(scope.orgUuid, webhookId, deliveryId);
  if (!original) throw new NotFoundError('The delivery was not found (deliveries are kept 30 days)');
  enabledOrRefused(webhook);
  const delivery: DeliveryRecord = { ...newDelivery(webhook, JSON.parse(original.body) as CloudEvent, 'redelivery', randomUUID()), body: original.body };
  await scheduleSend(delivery);
  return delivery;
}

/** Sends a ping event (`<prefix>.webhook.ping`) to the subscription, whatever types it asked for, within the caps and the rate of `scheduleSend`. */
export async function sendPing(scope: OrgScope, webhookId: string): Promise<DeliveryRecord> {
  const webhook = await found(scope, webhookId);
  enabledOrRefused(webhook);
  const { actor, requestId } = auditContext();
  const delivery = newDelivery(webhook, pingEvent(scope.orgUuid, webhookId, randomUUID(), actor, requestId), 'ping', randomUUID());
  await scheduleSend(delivery);
  return delivery;
}

/** How the answers show a subscription, an attempt and a scheduled delivery (the bindings map what the use cases return). */
export { toAttemptResponse, toScheduledResponse, toWebhookResponse } from '../../domain/webhooks/webhook.mapper';
