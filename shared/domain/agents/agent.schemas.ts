import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas, queryInt, storable } from '../../kernel/schemas/fields';
import { communicationStyles } from '../org/org.entities';

/**
 * Request schemas of the agent-configuration area (docs/api/agents.md). Bodies are strict:
 * an unknown field is a 422. Text is trimmed; blank or over-long text is refused. `null` where a field
 * is optional means the field is absent, as reads show absent optional fields. Update bodies also take
 * what a read of the same resource shows (the Agent), so a read can be sent back as it is:
 * its read-only fields are ignored or checked against the resource by `agent-write.service.ts`.
 */

export const text = (max: number) =>
  z.string().check(z.trim(), z.minLength(1, { message: 'Must not be blank' }), z.maxLength(max, { message: `Must be at most ${max} characters` }));

/** An optional field: absent, or `null` (which reads show for an absent value and which means the same). */
export const optional = <T extends z.ZodMiniType>(schema: T) =>
  // The outer `optional` keeps the key optional in the inferred type, as the transform alone would not.
  z.optional(
    z.pipe(
      z.nullish(schema),
      z.transform((value) => value ?? undefined),
    ),
  );

export const limits = {
  role: 200,
  goal: 2000,
  instructions: 20000,
  guardrails: 10000,
  rule: 2000,
  listItems: 50,
  searchTerm: 200,
} as const;

const list = <T extends z.ZodMiniType>(item: T) => z.array(item).check(z.maxLength(limits.listItems, { message: `At most ${limits.listItems} items` }));

/** A list naming each resource once. */
const uniqueByUuid = <T extends z.ZodMiniType<{ uuid: string }>>(item: T) =>
  list(item).check(
    z.superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((entry, index) => {
        if (seen.has(entry.uuid)) ctx.addIssue({ code: 'custom', message: 'Listed more than once', path: [index, 'uuid'] });
        seen.add(entry.uuid);
      });
    }),
  );

const personaMessage = { error: 'Must be an object whose uuid names one of the bot’s personas, e.g. {"uuid": "…"}' };

/** Fields a listing may be ordered by. */
export const orderableFields = ['updatedAt', 'createdAt', 'role'] as const;

/** The agent area's request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const agentSchemas = lazy(() => {
  const { uuidSchema, queryPageToken, queryDirection } = fieldSchemas();

  /** A reference as create bodies take it: the uuid alone. */
  const reference = z.strictObject({ uuid: uuidSchema });

  // Resources as reads show them: the uuid is the reference; the other fields, being the bot's
  // resource's, are accepted and ignored.

  /** The persona as reads show it. */
  const personaAsRead = z.strictObject(
    {
      uuid: uuidSchema,
      name: optional(z.string()),
      image: optional(z.string()),
      backstory: optional(z.string()),
      personality: optional(z.string()),
      communicationStyle: optional(z.enum(communicationStyles)),
    },
    personaMessage,
  );

  /** A function as reads show it: `uuid` and `name`. */
  const functionAsRead = z.strictObject({ uuid: uuidSchema, name: optional(z.string()) });

  /** A knowledge collection as reads show it. */
  const collectionAsRead = z.strictObject({
    uuid: uuidSchema,
    name: optional(z.string()),
    description: optional(z.string()),
    documentCount: optional(z.number().check(z.int())),
    searchType: optional(z.strictObject({ type: z.string(), semanticWeight: z.number().check(z.int()), fullTextWeight: z.number().check(z.int()) })),
    previousUserInput: optional(z.number().check(z.int())),
    threshold: optional(z.number()),
    topK: optional(z.number().check(z.int())),
  });

  /** `#term`: a hash and 1 to 50 letters, digits, `_` or `-`. */
  const tagSchema = z.strictObject({
    uuid: optional(uuidSchema),
    name: z.string().check(z.trim(), z.regex(/^#[\p{L}\p{N}_-]{1,50}$/u, { message: 'Must be # followed by 1 to 50 letters, digits, _ or -' })),
  });

  /**
   * Model parameters (docs/api/agents.md). Ranges: requestTimeout 1 to 600000 ms, temperature 0 to 2, topP 0 to 1,
   * penalties -2 to 2, maximumTokens 1 to 1000000; each a number DynamoDB can store (no `5e-324`).
   */
  const parametersSchema = z.strictObject({
    maximumTokens: optional(storable(z.number().check(z.int(), z.gte(1), z.lte(1_000_000)))),
    requestTimeout: storable(z.number().check(z.int(), z.gte(1), z.lte(600_000))),
    temperature: storable(z.number().check(z.gte(0), z.lte(2))),
    topP: storable(z.number().check(z.gte(0), z.lte(1))),
    presencePenalty: storable(z.number().check(z.gte(-2), z.lte(2))),
    frequencyPenalty: storable(z.number().check(z.gte(-2), z.lte(2))),
  });

  const ruleForCreate = z.strictObject({ value: text(limits.rule) });
  const ruleForUpdate = z.strictObject({ uuid: optional(uuidSchema), value: text(limits.rule) });

  const instructions = optional(text(limits.instructions));
  const guardrails = optional(text(limits.guardrails));
  const tags = optional(list(tagSchema));
  const parameters = optional(parametersSchema);

  /**
   * Fields every read shows and no body sets: `uuid` must be the path's and `flowUUID` the current one
   * when given; `heirs`, derived from the bot's agents, is ignored.
   */
  const assignedFields = {
    uuid: optional(uuidSchema),
    flowUUID: optional(uuidSchema),
    heirs: optional(z.array(z.strictObject({ role: z.string() }))),
  };

  /** The fields of agent create and update bodies (docs/api/agents.md), with each kind of reference in its flavour. */
  const agentFields = <P extends z.ZodMiniType, R extends z.ZodMiniType, F extends z.ZodMiniType<{ uuid: string }>, K extends z.ZodMiniType<{ uuid: string }>>(flavour: {
    persona: P;
    rule: R;
    function: F;
    collection: K;
  }) => ({
    // One line: quicksearch answers one role per line.
    role: text(limits.role).check(z.regex(/^[^\r\n]*$/, { message: 'Must be a single line' })),
    goal: text(limits.goal),
    instructions,
    guardrails,
    persona: flavour.persona,
    inheritFromSupervisor: z.boolean(),
    constraints: optional(list(flavour.rule)),
    tags,
    parameters,
    functions: optional(uniqueByUuid(flavour.function)),
    knowledge: optional(uniqueByUuid(flavour.collection)),
  });

  /** Create takes references by uuid alone: nothing exists yet that read-only fields could agree with. */
  const agentCreateSchema = z.strictObject(
    agentFields({ persona: z.strictObject({ uuid: uuidSchema }, personaMessage), rule: ruleForCreate, function: reference, collection: reference }),
  );

  const agentUpdateSchema = z.strictObject({
    ...agentFields({ persona: personaAsRead, rule: ruleForUpdate, function: functionAsRead, collection: collectionAsRead }),
    ...assignedFields,
  });

  /**
   * The supervisor update body, and what a supervisor read shows besides: `role`, `goal`,
   * `inheritFromSupervisor`, `functions` and `knowledge` are not changed by this route, so they are
   * accepted only with the current value (checked by `agent-write.service.ts`).
   */
  const supervisorUpdateSchema = z.strictObject({
    persona: personaAsRead,
    instructions,
    guardrails,
    constraints: optional(list(ruleForUpdate)),
    tags,
    parameters,
    ...assignedFields,
    role: optional(z.string()),
    goal: optional(z.string()),
    inheritFromSupervisor: optional(z.boolean()),
    functions: optional(z.array(functionAsRead)),
    knowledge: optional(z.array(collectionAsRead)),
  });

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
