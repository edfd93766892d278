import * as z from 'zod/mini';
import { agentFields } from '../../domain/agents/agent.fields';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { sharedResponses } from '../../kernel/schemas/responses';

/** What the bundle operations answer: a bundle, and the plan of applying one. Made on first call (by the API description), never as a function loads. */
export const bundleResponses = lazy(() => {
  const { patchOperationSchema } = sharedResponses();

  /** An entry's fields as exports show them (`agent.fields.ts`). */
  const entryShape = shapeOf(agentFields, 'bundleResponse');

  const bundleResponseSchema = z
    .strictObject({
      formatVersion: z.int(),
      supervisors: z.array(z.strictObject({ default: z.boolean(), ...entryShape })),
      agents: z.array(z.strictObject(entryShape)),
    })
    .check(
      z.meta({
        description:
          'A bot’s configuration: its supervisors (the default one marked) and agents, references to the bot’s personas, functions and ' +
          'knowledge collections and to tags by name, constraints by value; no uuid, timestamp or version. Sorted, so two exports of one ' +
          'configuration are byte-identical.',
      }),
    )
    .register(schemaRegistry, { id: 'BotBundle' });

  const changeSchema = z.strictObject({
    kind: z.enum(['supervisor', 'agent']),
    role: z.string(),
    action: z.enum(['create', 'update', 'unchanged', 'untouched']),
    patch: z.array(patchOperationSchema).check(
      z.meta({
        description: 'RFC 6902 patch from the target’s Agent to the result, without its uuids (`uuid`, `flowUUID`, rules’ and tags’ uuids) and `heirs`',
      }),
    ),
  });

  const bundlePlanSchema = z
    .strictObject({
      baseVersion: z.string().check(z.meta({ description: 'The configuration version of the bot the plan was computed against: `If-Match` of the apply' })),
      changes: z.array(changeSchema),
    })
    .register(schemaRegistry, { id: 'BundlePlan' });

  const bundleApplySchema = z
    .strictObject({
      baseVersion: z.string(),
      version: z.string().check(z.meta({ description: 'The bot’s configuration version after the apply (its ETag)' })),
      changes: z.array(changeSchema),
    })
    .register(schemaRegistry, { id: 'BundleApplied' });

  return { bundleResponseSchema, bundlePlanSchema, bundleApplySchema };
});
type BundleSchemas = ReturnType<typeof bundleResponses>;
export type BundleResponse = z.output<BundleSchemas['bundleResponseSchema']>;
export type BundleEntryResponse = BundleResponse['agents'][number];
export type BundlePlanResponse = z.output<BundleSchemas['bundlePlanSchema']>;
export type BundleApplyResponse = z.output<BundleSchemas['bundleApplySchema']>;
