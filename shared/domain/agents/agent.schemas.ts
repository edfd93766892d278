import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { fieldSchemas, queryInt } from '../../kernel/schemas/fields';
import { agentFields, type AgentFields } from './agent.fields';
import { limits, optional, requestParts, text } from './agent-field-parts';

/**
 * Request schemas of the agent-configuration area (docs/api/agents.md). Bodies are strict:
 * an unknown field is a 422. Text is trimmed; blank or over-long text is refused. `null` where a field
 * is optional means the field is absent, as reads show absent optional fields. Update bodies also take
 * what a read of the same resource shows (the Agent), so a read can be sent back as it is:
 * its read-only fields are ignored or checked against the resource by `agent-write.service.ts`.
 */

export { limits, optional, text };

/** Fields a listing may be ordered by. */
export const orderableFields = ['updatedAt', 'createdAt', 'role'] as const;

/** The agent area's request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const agentSchemas = lazy(() => {
  const { uuidSchema, queryPageToken, queryDirection } = fieldSchemas();

  const { tagSchema, parametersSchema } = requestParts();

  // Authored fields (bodies set them) rank before assigned ones (reads show them, bodies may carry them back).
  const assignedLast = (entry: AgentFields[keyof AgentFields]) => Number(entry.kind === 'assigned');
  /** A supervisor's update body: what it replaces (the persona, required, first), then the assigned and the kept fields. */
  const supervisorOrder = (entry: AgentFields[keyof AgentFields]) =>
    entry.kind === 'assigned' ? 2 : entry.supervisor === 'kept' ? 3 : Number(!entry.required);

  /** Create takes references by uuid alone: nothing exists yet that read-only fields could agree with. */
  const agentCreateSchema = z.strictObject(shapeOf(agentFields, 'create'));

  /** Update bodies also take what a read shows: each reference as read, and the assigned fields (`agent-update-checks.ts`). */
  const agentUpdateSchema = z.strictObject(shapeOf(agentFields, 'update', { order: assignedLast }));

  /**
   * The supervisor update body, and what a supervisor read shows besides: `role`, `goal`,
   * `inheritFromSupervisor`, `functions` and `knowledge` (`keptFields`) are not changed by this route,
   * so they are accepted only with the current value (checked by `agent-write.service.ts`).
   */
  const supervisorUpdateSchema = z.strictObject(shapeOf(agentFields, 'supervisorBody', { order: supervisorOrder }));

  const listQuerySchema = z.object({
    page: queryInt(1, 1_000_000, 1),
    pageToken: queryPageToken,
    size: queryInt(1, 100, 5),
    orderBy: z.pipe(
      z.optional(z.enum(orderableFields, { message: `Must be one of ${orderableFields.join(', ')}` })),
      z.transform((value) => value ?? 'updatedAt'),
    ),
    direction: queryDirection,
    searchTerm: z.optional(z.string().check(z.maxLength(limits.searchTerm))),
  });

  const quicksearchQuerySchema = z.object({
    name: z.string().check(z.maxLength(limits.searchTerm)),
    limit: queryInt(1, 50, 6),
  });

  const botPathSchema = z.object({ orgUUID: uuidSchema, envUUID: uuidSchema, botUUID: uuidSchema });
  const supervisorPathSchema = z.extend(botPathSchema, { supervisorUUID: uuidSchema });
  const agentPathSchema = z.extend(botPathSchema, { agentUUID: uuidSchema });

  /** A revision number in a path or query: a whole number from 1. */
  const revisionNumber = z.pipe(
    z.string().check(z.regex(/^[1-9]\d{0,9}$/, { message: 'Must be a revision number (a whole number from 1)' })),
    z.transform(Number),
  );

  const agentRevisionPathSchema = z.extend(agentPathSchema, { revision: revisionNumber });
  const supervisorRevisionPathSchema = z.extend(supervisorPathSchema, { revision: revisionNumber });

  /** A page of revisions, newest first: pages from 1, 5 by default, like the agent listings. */
  const revisionListQuerySchema = z.object({
    page: queryInt(1, 1_000_000, 1),
    pageToken: queryPageToken,
    size: queryInt(1, 100, 5),
  });

  const revisionDiffQuerySchema = z.object({ against: z.optional(revisionNumber) });

  return { tagSchema, parametersSchema, agentCreateSchema, agentUpdateSchema, supervisorUpdateSchema, listQuerySchema, quicksearchQuerySchema, botPathSchema, supervisorPathSchema, agentPathSchema, agentRevisionPathSchema, supervisorRevisionPathSchema, revisionListQuerySchema, revisionDiffQuerySchema };
});

type AgentSchemas = ReturnType<typeof agentSchemas>;
export type AgentCreate = z.infer<AgentSchemas['agentCreateSchema']>;
export type AgentUpdate = z.infer<AgentSchemas['agentUpdateSchema']>;
export type SupervisorUpdate = z.infer<AgentSchemas['supervisorUpdateSchema']>;
export type ListQuery = z.infer<AgentSchemas['listQuerySchema']>;
