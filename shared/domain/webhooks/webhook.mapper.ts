import { fullEventType } from '../audit/cloud-event';
import type { AttemptRecord, DeliveryRecord, WebhookRecord } from './webhook.entities';
import type { WebhookResponse } from './webhook.responses';
import type * as z from 'zod/mini';
import type { DeliveryAttemptSchema, DeliveryScheduledSchema } from './webhook.responses';

/** A subscription as the API answers it: the whitelist that keeps its secrets in. */
export function toWebhookResponse(webhook: WebhookRecord): WebhookResponse {
  const [current, previous] = webhook.secrets;
  return {
    id: webhook.id,
    url: webhook.url,
    // Kept without the prefix, answered as the events carry them.
    eventTypes: webhook.eventTypes.map((type) => (type === '*' ? type : fullEventType(type))),
    enabled: webhook.enabled,
    excludeActors: webhook.excludeActors,
    ...(webhook.description !== undefined ? { description: webhook.description } : {}),
    status: !webhook.enabled ? 'disabled' : webhook.failingSince ? 'failing' : 'active',
    failingSince: webhook.failingSince ?? null,
    disabledAt: webhook.enabled ? null : (webhook.disabledAt ?? null),
    disabledReason: webhook.enabled ? null : (webhook.disabledReason ?? null),
    secretCreatedAt: current!.createdAt,
    previousSecretExpiresAt: previous?.expiresAt ?? null,
    droppedEvents: webhook.droppedEvents ?? 0,
    lastDroppedAt: webhook.lastDroppedAt ?? null,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

export function toAttemptResponse(attempt: AttemptRecord): z.output<DeliveryAttemptSchema> {
  return {
    deliveryId: attempt.deliveryId,
    eventId: attempt.eventId,
    eventType: attempt.eventType,
    attempt: attempt.attempt,
    at: attempt.at,
    ok: attempt.ok,
    httpStatus: attempt.httpStatus,
    latencyMs: attempt.latencyMs,
    error: attempt.error ?? null,
  };
}

/** A delivery a test or a redelivery scheduled: what names it. */
export function toScheduledResponse(delivery: DeliveryRecord): z.output<DeliveryScheduledSchema> {
  return { deliveryId: delivery.id, eventId: delivery.eventId };
}
