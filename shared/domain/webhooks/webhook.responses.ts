import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { sharedResponses } from '../../kernel/schemas/responses';

/** What the webhooks area answers, made on first call (by the API description), never as a function loads. */
export const webhookResponses = lazy(() => {
  const { dateTime } = sharedResponses();

  /** A subscription as the API answers it: never its secret, except once, at creation and rotation. */
  const webhookSchema = z
    .strictObject({
      id: z.uuid(),
      url: z.string(),
      eventTypes: z.array(z.string()).check(z.describe('The event types delivered, as the events carry them (`com.agentplatform.agent.updated`), or `["*"]`')),
      enabled: z.boolean(),
      excludeActors: z.array(z.uuid()),
      description: z.optional(z.string()),
      status: z
        .enum(['active', 'failing', 'disabled'])
        .check(z.describe('`failing`: the latest attempts failed since `failingSince`; 24 hours of it disable the subscription')),
      failingSince: z.nullable(dateTime),
      disabledAt: z.nullable(dateTime),
      disabledReason: z
        .nullable(z.string())
        .check(z.describe('Why the subscription was disabled automatically (null when an ADMIN disabled it, or it is enabled)')),
      secretCreatedAt: dateTime.check(z.describe('When the current signing secret was made')),
      previousSecretExpiresAt: z.nullable(dateTime).check(z.describe('Until when the rotated-out secret still signs beside the current one')),
      droppedEvents: z
        .int()
        .check(
          z.describe("Change events never scheduled for this subscription because its backlog, or its organization's, was full: read them in the audit trail"),
        ),
      lastDroppedAt: z.nullable(dateTime).check(z.describe('When the last of them was dropped')),
      createdAt: dateTime,
      updatedAt: dateTime,
    })
    .register(schemaRegistry, { id: 'Webhook' });

  /** The answer of a create and of a rotation: the subscription and its new secret, shown this once. */
  const webhookWithSecretSchema = z
    .extend(webhookSchema, { secret: z.string().check(z.describe('The signing secret (`whsec_…`): shown only now, keep it')) })
    .register(schemaRegistry, { id: 'WebhookWithSecret' });

  /** One attempt of a delivery. */
  const deliveryAttemptSchema = z
    .strictObject({
      deliveryId: z.string(),
      eventId: z.string().check(z.describe('Also the `webhook-id` header: the same on every attempt and redelivery')),
      eventType: z.string(),
      attempt: z.int(),
      at: dateTime,
      ok: z.boolean(),
      httpStatus: z.nullable(z.int()),
      latencyMs: z.int(),
      error: z
        .nullable(z.string())
        .check(z.describe('Why the attempt failed, naming the rule it broke; never what the receiver answered (its body, a TLS or connection error)')),
    })
    .register(schemaRegistry, { id: 'WebhookDeliveryAttempt' });

  /** The answer of a redelivery and of a test: the delivery scheduled. */
  const deliveryScheduledSchema = z
    .strictObject({ deliveryId: z.string(), eventId: z.string() })
    .register(schemaRegistry, { id: 'WebhookDeliveryScheduled' });

  return { webhookSchema, webhookWithSecretSchema, deliveryAttemptSchema, deliveryScheduledSchema };
});
type WebhookSchemas = ReturnType<typeof webhookResponses>;
export type WebhookResponse = z.output<WebhookSchemas['webhookSchema']>;
export type DeliveryAttemptSchema = WebhookSchemas['deliveryAttemptSchema'];
export type DeliveryScheduledSchema = WebhookSchemas['deliveryScheduledSchema'];
