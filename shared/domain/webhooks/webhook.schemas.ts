import * as z from 'zod';
import { changeEventTypes, fullEventTypePattern } from '../audit/event-types';
import { queryInt, queryPageToken, uuidSchema } from '../../kernel/schemas/fields';
import { MAX_URL_LENGTH } from './webhook-limits';

/** Request schemas of `…/webhooks` (docs/api/events.md). */


const eventTypeMessage = `Must be *, an event's type (<prefix>.user.created) or its alias without the prefix: one of ${changeEventTypes.join(', ')}`;

/** An event's full `type` (its prefix checked against the stack's by the service), its alias without the prefix, or `*`. */
const eventTypeSchema = z.union(
  [z.enum(['*', ...changeEventTypes], { error: eventTypeMessage }), z.string({ error: eventTypeMessage }).max(200, { error: eventTypeMessage }).regex(fullEventTypePattern, { error: eventTypeMessage })],
  { error: eventTypeMessage },
);

/** The body of a create, and of an update (which replaces every field). */
export const webhookBodySchema = z.strictObject({
  url: z
    .string()
    .max(MAX_URL_LENGTH, { message: `Must be at most ${MAX_URL_LENGTH} characters` })
    .describe('Where deliveries are POSTed: an https URL whose host resolves to public addresses'),
  eventTypes: z
    .array(eventTypeSchema)
    .min(1, { message: 'Must name at least one event type, or *' })
    // Each type in both of its forms, and *.
    .max(2 * changeEventTypes.length + 1)
    .describe(
      'The event types wanted: the `type` the events carry (`com.agentplatform.agent.updated` under the default prefix), or its alias without the prefix (`agent.updated`), or `["*"]` for every one. Answered as full types',
    ),
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
