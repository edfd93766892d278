import * as z from 'zod/mini';
import { communicationStyles } from '../org/org.entities';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { pageSchemaOf, sharedResponses } from '../../kernel/schemas/responses';

/**
 * What the agent-configuration area answers. Mappers return these types, so a field they let out fails the OpenAPI document's response tests.
 * Made on first call (by the API description), never as a function loads.
 */
export const agentResponses = lazy(() => {
  const { actorSchema, dateTime, patchOperationSchema } = sharedResponses();

  const tagSchema = z.strictObject({ uuid: z.uuid(), name: z.string() }).register(schemaRegistry, { id: 'Tag' });

  /** A listing's item: the summary fields. */
  const agentSummarySchema = z
    .strictObject({
      uuid: z.uuid(),
      role: z.string(),
      goal: z.string(),
      tags: z.array(tagSchema),
      inheritFromSupervisor: z.boolean(),
      createdAt: dateTime,
      updatedAt: dateTime,
    })
    .register(schemaRegistry, { id: 'AgentSummary' });

  const agentPageSchema = pageSchemaOf(agentSummarySchema, 'AgentPage', 'Page of agents or supervisors; `number` is 1-based.');

  const parametersResponseSchema = z
    .strictObject({
      maximumTokens: z.optional(z.int()),
      requestTimeout: z.int(),
      temperature: z.number(),
      topP: z.number(),
      presencePenalty: z.number(),
      frequencyPenalty: z.number(),
    })
    .register(schemaRegistry, { id: 'Parameters' });

  /** An agent as the API answers it (docs/api/agents.md#reads), also the shape supervisors are read in. */
  const agentSchema = z
    .strictObject({
      uuid: z.uuid(),
      role: z.string(),
      flowUUID: z.string(),
      goal: z.string(),
      instructions: z.nullable(z.string()),
      guardrails: z.nullable(z.string()),
      persona: z.nullable(
        z.strictObject({
          uuid: z.uuid(),
          name: z.string(),
          image: z.nullable(z.string()),
          backstory: z.nullable(z.string()),
          personality: z.nullable(z.string()),
          communicationStyle: z.enum(communicationStyles),
        }),
      ),
      inheritFromSupervisor: z.boolean(),
      constraints: z.array(z.strictObject({ uuid: z.uuid(), value: z.string() })),
      tags: z.array(tagSchema),
      parameters: z.nullable(parametersResponseSchema),
      functions: z.array(z.strictObject({ uuid: z.uuid(), name: z.string() })),
      knowledge: z.array(
        z.strictObject({
          uuid: z.uuid(),
          name: z.string(),
          description: z.string(),
          documentCount: z.int(),
          searchType: z.strictObject({ type: z.string(), semanticWeight: z.int(), fullTextWeight: z.int() }),
          previousUserInput: z.int(),
          threshold: z.number(),
          topK: z.int(),
        }),
      ),
      heirs: z.array(z.strictObject({ role: z.string() })),
    })
    .check(z.meta({ description: 'An agent as the API answers it (docs/api/agents.md#reads); supervisors are read in this shape.' }))
    .register(schemaRegistry, { id: 'Agent' });

  /** An item of a revision listing. */
  const revisionSummarySchema = z
    .strictObject({ revision: z.int(), createdAt: dateTime, author: actorSchema, action: z.enum(['CREATED', 'UPDATED', 'RESTORED']) })
    .register(schemaRegistry, { id: 'RevisionSummary' });

  const revisionPageSchema = pageSchemaOf(revisionSummarySchema, 'RevisionPage', 'Page of revisions, newest first; `number` is 1-based.');

  /** The patch turning revision `from`'s Agent into revision `to`'s (`from` null: from nothing). */
  const revisionDiffSchema = z
    .strictObject({ from: z.nullable(z.int()), to: z.int(), patch: z.array(patchOperationSchema) })
    .register(schemaRegistry, { id: 'RevisionDiff' });

  return { agentSummarySchema, agentPageSchema, parametersResponseSchema, agentSchema, revisionSummarySchema, revisionPageSchema, revisionDiffSchema };
});
type AgentSchemas = ReturnType<typeof agentResponses>;
export type AgentSummary = z.output<AgentSchemas['agentSummarySchema']>;
export type AgentResponse = z.output<AgentSchemas['agentSchema']>;
/** A persona (its name only), as an Agent names it. */
export type PersonaResponse = NonNullable<AgentResponse['persona']>;
/** A knowledge collection. */
export type CollectionResponse = AgentResponse['knowledge'][number];
export type RevisionSummary = z.output<AgentSchemas['revisionSummarySchema']>;
export type RevisionDiff = z.output<AgentSchemas['revisionDiffSchema']>;
