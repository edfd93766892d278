import * as z from 'zod/mini';
import { agentFields } from './agent.fields';
import { responseParts } from './agent-field-parts';
import { lazy } from '../../kernel/lazy';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { pageSchemaOf, sharedResponses } from '../../kernel/schemas/responses';

/**
 * What the agent-configuration area answers. Mappers return these types, so a field they let out fails the OpenAPI document's response tests.
 * Made on first call (by the API description), never as a function loads.
 */
export const agentResponses = lazy(() => {
  const { actorSchema, dateTime, patchOperationSchema } = sharedResponses();

  const { tagSchema, parametersSchema: parametersResponseSchema } = responseParts();

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

  /** An agent as the API answers it (docs/api/agents.md#reads), also the shape supervisors are read in. */
  const agentSchema = z
    .strictObject(shapeOf(agentFields, 'response'))
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
