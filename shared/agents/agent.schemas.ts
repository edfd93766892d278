import * as z from 'zod';
import { queryDirection, queryInt } from '../http/page';
import { storable, uuidSchema } from '../http/schemas';

/**
 * Request schemas of the agent-configuration area (spec 4.1, 4.2, 2.3 to 2.7). Bodies are strict:
 * an unknown field is a 422. Text is trimmed; blank or over-long text is refused.
 */

const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { message: 'Must not be blank' })
    .max(max, { message: `Must be at most ${max} characters` });

export const limits = {
  role: 200,
  goal: 2000,
  instructions: 20000,
  guardrails: 10000,
  rule: 2000,
  listItems: 50,
  searchTerm: 200,
} as const;

const reference = z.strictObject({ uuid: uuidSchema });

const list = <T extends z.ZodType>(item: T) =>
  z.array(item).max(limits.listItems, { message: `At most ${limits.listItems} items` });

/** A list of references naming each resource once. */
const references = list(reference).superRefine((items, ctx) => {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.uuid)) ctx.addIssue({ code: 'custom', message: 'Listed more than once', path: [index, 'uuid'] });
    seen.add(item.uuid);
  });
});

/** `#term`: a hash and 1 to 50 letters, digits, `_` or `-`. */
export const tagSchema = z.strictObject({
  uuid: uuidSchema.optional(),
  name: z
    .string()
    .trim()
    .regex(/^#[\p{L}\p{N}_-]{1,50}$/u, { message: 'Must be # followed by 1 to 50 letters, digits, _ or -' }),
});

/**
 * Model parameters (2.5). Ranges: requestTimeout 1 to 600000 ms, temperature 0 to 2, topP 0 to 1,
 * penalties -2 to 2, maximumTokens 1 to 1000000; each a number DynamoDB can store (no `5e-324`).
 */
export const parametersSchema = z.strictObject({
  maximumTokens: storable(z.number().int().min(1).max(1_000_000)).optional(),
  requestTimeout: storable(z.number().int().min(1).max(600_000)),
  temperature: storable(z.number().min(0).max(2)),
  topP: storable(z.number().min(0).max(1)),
  presencePenalty: storable(z.number().min(-2).max(2)),
  frequencyPenalty: storable(z.number().min(-2).max(2)),
});

const ruleForCreate = z.strictObject({ value: text(limits.rule) });
const ruleForUpdate = z.strictObject({ uuid: uuidSchema.optional(), value: text(limits.rule) });

const agentFields = {
  // One line: quicksearch answers one role per line.
  role: text(limits.role).regex(/^[^\r\n]*$/, { message: 'Must be a single line' }),
  goal: text(limits.goal),
  instructions: text(limits.instructions).optional(),
  guardrails: text(limits.guardrails).optional(),
  persona: reference,
  inheritFromSupervisor: z.boolean(),
  tags: list(tagSchema).optional(),
  parameters: parametersSchema.optional(),
  functions: references.optional(),
  knowledge: references.optional(),
};

export const agentCreateSchema = z.strictObject({ ...agentFields, constraints: list(ruleForCreate).optional() });
export const agentUpdateSchema = z.strictObject({ ...agentFields, constraints: list(ruleForUpdate).optional() });

export const supervisorUpdateSchema = z.strictObject({
  persona: reference,
  instructions: text(limits.instructions).optional(),
  guardrails: text(limits.guardrails).optional(),
  constraints: list(ruleForUpdate).optional(),
  tags: list(tagSchema).optional(),
  parameters: parametersSchema.optional(),
});

export type AgentCreate = z.infer<typeof agentCreateSchema>;
export type AgentUpdate = z.infer<typeof agentUpdateSchema>;
export type SupervisorUpdate = z.infer<typeof supervisorUpdateSchema>;

/** Fields a listing may be ordered by. */
export const orderableFields = ['updatedAt', 'createdAt', 'role'] as const;

export const listQuerySchema = z.object({
  page: queryInt(1, 1_000_000, 1),
  size: queryInt(1, 100, 5),
  orderBy: z
    .enum(orderableFields, { message: `Must be one of ${orderableFields.join(', ')}` })
    .optional()
    .transform((value) => value ?? 'updatedAt'),
  direction: queryDirection,
  searchTerm: z.string().max(limits.searchTerm).optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export const quicksearchQuerySchema = z.object({
  name: z.string().max(limits.searchTerm),
  limit: queryInt(1, 50, 6),
});

export const botPathSchema = z.object({ orgUUID: uuidSchema, envUUID: uuidSchema, botUUID: uuidSchema });
export const supervisorPathSchema = botPathSchema.extend({ supervisorUUID: uuidSchema });
export const agentPathSchema = botPathSchema.extend({ agentUUID: uuidSchema });

/** A revision number in a path or query: a whole number from 1. */
const revisionNumber = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, { message: 'Must be a revision number (a whole number from 1)' })
  .transform(Number);

export const agentRevisionPathSchema = agentPathSchema.extend({ revision: revisionNumber });
export const supervisorRevisionPathSchema = supervisorPathSchema.extend({ revision: revisionNumber });

/** A page of revisions, newest first: pages from 1, 5 by default, like the agent listings. */
export const revisionListQuerySchema = z.object({
  page: queryInt(1, 1_000_000, 1),
  size: queryInt(1, 100, 5),
});

export const revisionDiffQuerySchema = z.object({ against: revisionNumber.optional() });
