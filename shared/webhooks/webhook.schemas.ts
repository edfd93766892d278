import * as z from 'zod';
import { changeEventTypes } from '../audit/event-types';
import { queryInt, queryPageToken, uuidSchema } from '../schemas/fields';
import { MAX_URL_LENGTH } from './webhook-address';

/** Request schemas of `…/webhooks` (docs/api/events.md). */

const eventTypeSchema = z.enum(['*', ...changeEventTypes], { message: `Must be * or one of ${changeEventTypes.join(', ')}` });

/** The body of a create, and of an update (which replaces every field). */
export const webhookBodySchema = z.strictObject({
  url: z
    .string()
    .max(MAX_URL_LENGTH, { message: `Must be at most ${MAX_URL_LENGTH} characters` })
    .describe('Where deliveries are POSTed: an https URL whose host resolves to public addresses'),
  eventTypes: z
    .array(eventTypeSchema)
    .min(1, { message: 'Must name at least one event type, or *' })
    .max(changeEventTypes.length + 1)
    .describe('The event types wanted (without the stack prefix, e.g. `agent.updated`), or `["*"]` for every one'),
  enabled: z.boolean().default(true).describe('A disabled subscription receives nothing; enabling it again clears why it was disabled'),
  excludeActors: z
    .array(uuidSchema)
    .max(20)
    .default([])
    .describe("Users whose changes are not delivered: your integration's own user, so it does not hear its own echoes"),
  description: z.string().max(200).optional(),
});
export type WebhookBody = z.output<typeof webhookBodySchema>;

export const webhookPathSchema = z.strictObject({ orgUUID: uuidSchema, webhookId: uuidSchema });
export const deliveryPathSchema = z.strictObject({ orgUUID: uuidSchema, webhookId: uuidSchema, deliveryId: z.string().regex(/^[0-9a-f-]{32,36}$/, { message: 'Must be a delivery id' }) });

/** `GET …/deliveries`: the newest `limit` attempts (1 to 100, 20 by default). */
export const deliveriesQuerySchema = z.strictObject({ limit: queryInt(1, 100, 20), pageToken: queryPageToken });
