import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { queryInt } from '../../kernel/schemas/fields';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { sharedResponses } from '../../kernel/schemas/responses';
import { auditResourceTypes } from '../../domain/audit/audit-kinds';

/** The change feed's request and answer schemas, made on first call (when the route's chain or the API description is built), never as a function loads. */
export const changeFeedSchemas = lazy(() => {
  const { actorSchema, dateTime, patchOperationSchema } = sharedResponses();

  /**
   * `GET …/events`: `after` (a `next` this feed gave), `types` (repeatable or comma-separated; checked
   * against the known types by the use case, which knows the stack's prefix), `limit` 1 to 100
   * (default 50) and `wait` 0 to 20 seconds (default 0).
   */
  const feedQuerySchema = z.object({
    after: z
      .optional(z.string().check(z.minLength(1, { message: 'Must not be empty' }), z.maxLength(200, { message: 'Must be at most 200 characters' })))
      .check(z.meta({ description: 'A `next` this feed gave: the events after it. Without it, the feed starts at the oldest event kept.' })),
    types: z
      .optional(z.string().check(z.maxLength(4000, { message: 'Must be at most 4,000 characters' })))
      .check(
        z.meta({
          description:
            'Event types wanted, repeatable (`types=a&types=b`) or comma-separated: full types (`com.agentplatform.user.created`), their aliases without the prefix (`user.created`), or either ending in `*` (`com.agentplatform.user.*`). All types when absent.',
        }),
      ),
    limit: queryInt(1, 100, 50),
    wait: queryInt(0, 20, 0),
  });

  /** One change event: the CloudEvent EventBridge and webhooks receive, unchanged. */
  const changeEventSchema = z
    .strictObject({
      specversion: z.literal('1.0'),
      id: z.uuid(),
      source: z.string().check(z.meta({ description: 'The organization: `/org/<uuid>`' })),
      type: z.string().check(z.meta({ description: '`<prefix>.<type>`, e.g. `com.agentplatform.agent.updated` (docs/api/events.md#event-types)' })),
      subject: z.string().check(z.meta({ description: "The resource's path under its organization" })),
      time: dateTime,
      datacontenttype: z.literal('application/json'),
      sequence: z.string().check(z.meta({ description: "Orders one resource's events: compare as strings" })),
      data: z.strictObject({
        resource: z.strictObject({ type: z.enum([...auditResourceTypes, 'WEBHOOK_PING']), uuid: z.string() }),
        environmentUuid: z.optional(z.uuid()),
        botUuid: z.optional(z.uuid()),
        actor: actorSchema,
        requestId: z.nullable(z.string()),
        changes: z.optional(z.array(patchOperationSchema)),
        changesOmitted: z.optional(z.literal(true)),
      }),
    })
    .check(z.meta({ description: 'A change event: CloudEvents 1.0, structured JSON (docs/api/events.md#the-event)' }))
    .register(schemaRegistry, { id: 'ChangeEvent' });

  const feedPageSchema = z
    .strictObject({
      events: z.array(changeEventSchema),
      next: z.string().check(
        z.meta({ description: 'The cursor after this page (always present): pass it as `after` to read on. It advances past events the `types` filter left out.' }),
      ),
    })
    .check(z.meta({ description: "A page of the organization's change feed, oldest first" }))
    .register(schemaRegistry, { id: 'ChangeFeedPage' });

  return { feedQuerySchema, changeEventSchema, feedPageSchema };
});
