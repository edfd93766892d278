import * as z from 'zod/mini';
import { changeEventTypes, fullEventTypePattern } from '../audit/event-types';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas, queryInt } from '../../kernel/schemas/fields';
import { MAX_URL_LENGTH } from './webhook-limits';

/** Request schemas of `…/webhooks` (docs/api/events.md). */


const eventTypeMessage = `Must be *, an event's type (<prefix>.user.created) or its alias without the prefix: one of ${changeEventTypes.join(', ')}`;

/** The webhooks' request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const webhookSchemas = lazy(() => {
  const { uuidSchema, queryPageToken } = fieldSchemas();

  /** An event's full `type` (its prefix checked against the stack's by the service), its alias without the prefix, or `*`. */
  const eventTypeSchema = z.union(
    [
      z.enum(['*', ...changeEventTypes], { error: eventTypeMessage }),
      z.string({ error: eventTypeMessage }).check(z.maxLength(200, { error: eventTypeMessage }), z.regex(fullEventTypePattern, { error: eventTypeMessage })),
    ],
    { error: eventTypeMessage },
  );

  /** The body of a create, and of an update (which replaces every field). */
  const webhookBodySchema = z.strictObject({
    url: z
      .string()
      .check(
        z.maxLength(MAX_URL_LENGTH, { message: `Must be at most ${MAX_URL_LENGTH} characters` }),
        z.describe('Where deliveries are POSTed: an https URL on port 443 or 8443 whose host resolves to public addresses'),
      ),
    eventTypes: z
      .array(eventTypeSchema)
      .check(
        z.minLength(1, { message: 'Must name at least one event type, or *' }),
        z.maxLength(2 * changeEventTypes.length + 1),
        z.describe(
          'The event types wanted: the `type` the events carry (`com.agentplatform.agent.updated` under the default prefix), or its alias without the prefix (`agent.updated`), or `["*"]` for every one. Answered as full types',
        ),
      ),
    enabled: z._default(z.boolean(), true).check(z.describe('A disabled subscription receives nothing; enabling it again clears why it was disabled')),
    excludeActors: z
      ._default(z.array(uuidSchema).check(z.maxLength(20)), [])
      .check(z.describe("Users whose changes are not delivered: your integration's own user, so it does not hear its own echoes")),
    description: z.optional(z.string().check(z.maxLength(200))),
  });

  const webhookPathSchema = z.strictObject({ orgUUID: uuidSchema, webhookId: uuidSchema });
  const deliveryPathSchema = z.strictObject({
    orgUUID: uuidSchema,
    webhookId: uuidSchema,
    deliveryId: z.string().check(z.regex(/^[0-9a-f-]{32,36}$/, { message: 'Must be a delivery id' })),
  });

  /** `GET …/deliveries`: the newest `limit` attempts (1 to 100, 20 by default). */
  const deliveriesQuerySchema = z.strictObject({ limit: queryInt(1, 100, 20), pageToken: queryPageToken });

  return { webhookBodySchema, webhookPathSchema, deliveryPathSchema, deliveriesQuerySchema };
});

export type WebhookBody = z.output<ReturnType<typeof webhookSchemas>['webhookBodySchema']>;
