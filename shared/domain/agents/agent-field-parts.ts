import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas, storable } from '../../kernel/schemas/fields';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { fold } from '../../kernel/text/matching';
import { communicationStyles, type Collection, type Persona } from '../org/org.entities';

/** The schema pieces the fields of supervisors and agents are built from (`agent.fields.ts`): limits, texts, lists, references. */

export const limits = {
  role: 200,
  goal: 2000,
  instructions: 20000,
  guardrails: 10000,
  rule: 2000,
  listItems: 50,
  searchTerm: 200,
} as const;

/** Trimmed text of 1 to `max` characters. */
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
export type Optional<T extends z.ZodMiniType> = ReturnType<typeof optional<T>>;

export const list = <T extends z.ZodMiniType>(item: T) => z.array(item).check(z.maxLength(limits.listItems, { message: `At most ${limits.listItems} items` }));

/** A list naming each resource once. */
export const uniqueByUuid = <T extends z.ZodMiniType<{ uuid: string }>>(item: T) =>
  list(item).check(
    z.superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((entry, index) => {
        if (seen.has(entry.uuid)) ctx.addIssue({ code: 'custom', message: 'Listed more than once', path: [index, 'uuid'] });
        seen.add(entry.uuid);
      });
    }),
  );

export const personaMessage = { error: 'Must be an object whose uuid names one of the bot’s personas, e.g. {"uuid": "…"}' };

/** The pieces of request schemas the fields share, made on first call. */
export const requestParts = lazy(() => {
  const { uuidSchema } = fieldSchemas();

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

  /** A reference to one of the bot's personas, functions or knowledge collections by its name, as bundles make them. */
  const named = z.strictObject({ name: text(limits.role) });

  /** References by name, each name once (compared as the target compares them: without case or accents). */
  const namedList = list(named).check(
    z.superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((item, index) => {
        if (seen.has(fold(item.name))) ctx.addIssue({ code: 'custom', message: 'Listed more than once', path: [index, 'name'] });
        seen.add(fold(item.name));
      });
    }),
  );

  return { uuidSchema, reference, personaAsRead, functionAsRead, collectionAsRead, tagSchema, parametersSchema, ruleForCreate, ruleForUpdate, namedList };
});

/** The pieces of response schemas the fields share, made on first call (by the API description). */
export const responseParts = lazy(() => {
  const tagSchema = z.strictObject({ uuid: z.uuid(), name: z.string() }).register(schemaRegistry, { id: 'Tag' });
  const parametersSchema = z
    .strictObject({
      maximumTokens: z.optional(z.int()),
      requestTimeout: z.int(),
      temperature: z.number(),
      topP: z.number(),
      presencePenalty: z.number(),
      frequencyPenalty: z.number(),
    })
    .register(schemaRegistry, { id: 'Parameters' });
  const named = z.strictObject({ name: z.string() });
  return { tagSchema, parametersSchema, named };
});

/** How references read: in the agent's order, as the bot's resources show them. */
export const sameUuids = (given: { uuid: string }[], shown: { uuid: string }[]) => given.map((item) => item.uuid).join(',') === shown.map((item) => item.uuid).join(',');

/** Keeps the agent's order of references; a resource that no longer exists is left out. */
export function inOrder<T extends { uuid: string }>(uuids: string[], found: T[]): T[] {
  return uuids.flatMap((uuid) => found.filter((item) => item.uuid === uuid));
}

export const personaOf = (p: Persona) => ({
  uuid: p.uuid,
  name: p.name,
  image: p.image ?? null,
  backstory: p.backstory ?? null,
  personality: p.personality ?? null,
  communicationStyle: p.communicationStyle,
});

export const collectionOf = (c: Collection) => ({
  uuid: c.uuid,
  name: c.name,
  description: c.description,
  documentCount: c.documentCount,
  searchType: { type: c.searchType.type, semanticWeight: c.searchType.semanticWeight, fullTextWeight: c.searchType.fullTextWeight },
  previousUserInput: c.previousUserInput,
  threshold: c.threshold,
  topK: c.topK,
});
