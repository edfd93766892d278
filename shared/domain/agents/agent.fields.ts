import * as z from 'zod/mini';
import { namesWhere, present, without } from '../../kernel/schemas/declared-fields';
import { communicationStyles, type BotFunction, type Collection, type Persona, type Tag } from '../org/org.entities';
import {
  collectionOf,
  inOrder,
  limits,
  list,
  optional,
  personaMessage,
  personaOf,
  requestParts,
  responseParts,
  sameUuids,
  text,
  uniqueByUuid,
  type Optional,
} from './agent-field-parts';

/**
 * The fields of supervisors and agents, declared once (docs/architecture.md#fields-declared-once):
 * what each is in the create body, the agent's and the supervisor's update bodies, a read (the Agent
 * of docs/api/agents.md), the stored record, a revision and a bundle entry. The request and response
 * schemas (`agent.schemas.ts`, `agent.responses.ts`, the bundle's), the record type, the mapper, the
 * revision's content, the bundle's entry and what an update replaces are derived from `agentFields`.
 *
 * Three kinds of field:
 * - plain (`requiredField`, `optionalField`): stored under its name as the body gives it, read as
 *   stored (`null` when an optional one is absent), carried by bundles and revisions as read. A new
 *   text, flag or number of an agent is one line here.
 * - references (`persona`, `constraints`, `tags`, `functions`, `knowledge`): the bot's resources,
 *   the organization's tags and the agent's rules, stored by uuid (`ReferenceContent`) and shown
 *   with what they name; how a body's references are checked against the bot is `agent-references.ts`'s
 *   and the bundle plan's.
 * - assigned (`uuid`, `flowUUID`, `heirs`): shown by reads, set by no body; an update body may carry
 *   them back as read (`agent-update-checks.ts`).
 */

/** One of an agent's rules (its constraints). */
export interface Rule {
  uuid: string;
  value: string;
}

/** What the references of a record hold: the uuids of what they name, the rules and the tags. */
export interface ReferenceContent {
  personaUuid: string;
  constraints: Rule[];
  tags: Tag[];
  functionUuids: string[];
  collectionUuids: string[];
}

/** What a field is read from: the record, the bot's resources it names and, for a supervisor, its heirs' roles. */
export interface FieldSource {
  record: { uuid: string; flowUUID: string } & ReferenceContent & Record<string, unknown>;
  resources: { personas: Persona[]; functions: BotFunction[]; collections: Collection[] };
  heirs: string[];
}

/** How a supervisor's update treats a field an agent's update replaces: replaces it too, or keeps it (the body may only repeat it). */
type SupervisorUpdate = 'replaces' | 'kept';

/** What every authored field (plain or reference) declares besides its schemas. */
interface Authored<Name extends SupervisorUpdate> {
  /** Whether create bodies and bundle entries must give it (an absent optional field is `null` in reads). */
  required: boolean;
  supervisor: Name;
  /** Shows the field of a record (`source`) in a read. */
  read: (source: FieldSource, name: string) => unknown;
  /** Whether a supervisor body's value is the one its read shows (`supervisor: 'kept'` fields). */
  sameAsRead?: (given: never, shown: never) => boolean;
  /** A read's value as a bundle entry carries it. */
  toEntry: (shown: never) => unknown;
}

/**
 * A field every body and bundle entry gives: `body` its schema in requests (create, update, bundle),
 * `response` in reads and bundle exports; stored as given.
 */
function requiredField<S extends z.ZodMiniType, R extends z.ZodMiniType, U extends SupervisorUpdate>(field: { body: () => S; response: () => R; supervisor: U }) {
  return {
    kind: 'plain' as const,
    required: true as const,
    supervisor: field.supervisor,
    create: field.body,
    update: field.body,
    supervisorBody: (field.supervisor === 'kept' ? () => optional(field.response()) : field.body) as () => U extends 'kept' ? Optional<R> : S,
    response: field.response,
    bundle: field.body,
    bundleResponse: field.response,
    read: ({ record }: FieldSource, name: string) => record[name],
    sameAsRead: (given: unknown, shown: unknown) => given === shown,
    toEntry: (shown: unknown) => shown,
  } satisfies Authored<U> & Record<string, unknown>;
}

/**
 * A field bodies may leave out (or send `null`): absent from the record then, `null` in reads and
 * bundle exports. Every update replaces it (left out, it is cleared), a supervisor's too. `show`
 * turns the stored value into the read's (by default as stored).
 */
function optionalField<S extends z.ZodMiniType, R extends z.ZodMiniType>(field: { body: () => S; response: () => R; show?: (stored: never) => unknown }) {
  const show = (field.show ?? ((stored: unknown) => stored)) as (stored: unknown) => unknown;
  const body = () => optional(field.body());
  const response = () => z.nullable(field.response());
  return {
    kind: 'plain' as const,
    required: false as const,
    supervisor: 'replaces' as const,
    create: body,
    update: body,
    supervisorBody: body,
    response,
    bundle: body,
    bundleResponse: response,
    read: ({ record }: FieldSource, name: string) => (record[name] === undefined ? null : show(record[name] as never)),
    toEntry: (shown: unknown) => shown,
  } satisfies Authored<'replaces'> & Record<string, unknown>;
}

/** A field reads show and no body sets; update bodies may carry it back as read. */
function assignedField<S extends z.ZodMiniType, R extends z.ZodMiniType>(field: { body: () => S; response: () => R; read: (source: FieldSource) => unknown }) {
  return { kind: 'assigned' as const, update: field.body, supervisorBody: field.body, response: field.response, read: field.read };
}

/** Model parameters as stored: what the request schema gives. */
type StoredParameters = z.output<ReturnType<typeof requestParts>['parametersSchema']>;

/** The parameters a read shows: those the request schema names, the optional `maximumTokens` only when set. */
const parametersOf = (p: StoredParameters) => present(p, Object.keys(requestParts().parametersSchema.shape));

/**
 * Supervisors' and agents' fields, in the order reads show them. Create bodies, update bodies and
 * bundle entries take the authored ones in this order too (update bodies then the assigned ones; a
 * supervisor's update body first what it replaces, the persona it requires first, then the assigned
 * and the kept fields).
 */
export const agentFields = {
  uuid: assignedField({ body: () => optional(requestParts().uuidSchema), response: () => z.uuid(), read: ({ record }) => record.uuid }),
  role: requiredField({
    // One line: quicksearch answers one role per line.
    body: () => text(limits.role).check(z.regex(/^[^\r\n]*$/, { message: 'Must be a single line' })),
    response: () => z.string(),
    supervisor: 'kept',
  }),
  flowUUID: assignedField({ body: () => optional(requestParts().uuidSchema), response: () => z.string(), read: ({ record }) => record.flowUUID }),
  goal: requiredField({ body: () => text(limits.goal), response: () => z.string(), supervisor: 'kept' }),
  instructions: optionalField({ body: () => text(limits.instructions), response: () => z.string() }),
  guardrails: optionalField({ body: () => text(limits.guardrails), response: () => z.string() }),
  persona: {
    kind: 'reference' as const,
    required: true,
    supervisor: 'replaces' as const,
    create: () => z.strictObject({ uuid: requestParts().uuidSchema }, personaMessage),
    update: () => requestParts().personaAsRead,
    supervisorBody: () => requestParts().personaAsRead,
    response: () =>
      z.nullable(
        z.strictObject({
          uuid: z.uuid(),
          name: z.string(),
          image: z.nullable(z.string()),
          backstory: z.nullable(z.string()),
          personality: z.nullable(z.string()),
          communicationStyle: z.enum(communicationStyles),
        }),
      ),
    bundle: () => z.strictObject({ name: text(limits.role) }, { error: 'Must be an object naming one of the bot’s personas, e.g. {"name": "…"}' }),
    bundleResponse: () => z.nullable(responseParts().named),
    read: ({ record, resources }: FieldSource) => {
      const persona = resources.personas.find((p) => p.uuid === record.personaUuid);
      return persona ? personaOf(persona) : null;
    },
    toEntry: (persona: { name: string } | null) => (persona ? { name: persona.name } : null),
  },
  inheritFromSupervisor: requiredField({ body: () => z.boolean(), response: () => z.boolean(), supervisor: 'kept' }),
  constraints: {
    kind: 'reference' as const,
    required: false,
    supervisor: 'replaces' as const,
    create: () => optional(list(requestParts().ruleForCreate)),
    update: () => optional(list(requestParts().ruleForUpdate)),
    supervisorBody: () => optional(list(requestParts().ruleForUpdate)),
    response: () => z.array(z.strictObject({ uuid: z.uuid(), value: z.string() })),
    bundle: () => optional(list(z.strictObject({ value: text(limits.rule) }))),
    bundleResponse: () => z.array(z.strictObject({ value: z.string() })),
    read: ({ record }: FieldSource) => record.constraints.map(({ uuid, value }) => ({ uuid, value })),
    toEntry: (rules: Rule[]) => rules.map(({ value }) => ({ value })),
  },
  tags: {
    kind: 'reference' as const,
    required: false,
    supervisor: 'replaces' as const,
    create: () => optional(list(requestParts().tagSchema)),
    update: () => optional(list(requestParts().tagSchema)),
    supervisorBody: () => optional(list(requestParts().tagSchema)),
    response: () => z.array(responseParts().tagSchema),
    bundle: () => optional(list(z.strictObject({ name: requestParts().tagSchema.shape.name }))),
    bundleResponse: () => z.array(responseParts().named),
    read: ({ record }: FieldSource) => record.tags.map(({ uuid, name }) => ({ uuid, name })),
    toEntry: (tags: Tag[]) => tags.map(({ name }) => ({ name })),
  },
  parameters: optionalField({ body: () => requestParts().parametersSchema, response: () => responseParts().parametersSchema, show: parametersOf }),
  functions: {
    kind: 'reference' as const,
    required: false,
    supervisor: 'kept' as const,
    create: () => optional(uniqueByUuid(requestParts().reference)),
    update: () => optional(uniqueByUuid(requestParts().functionAsRead)),
    supervisorBody: () => optional(z.array(requestParts().functionAsRead)),
    response: () => z.array(z.strictObject({ uuid: z.uuid(), name: z.string() })),
    bundle: () => optional(requestParts().namedList),
    bundleResponse: () => z.array(responseParts().named),
    read: ({ record, resources }: FieldSource) => inOrder<BotFunction>(record.functionUuids, resources.functions).map(({ uuid, name }) => ({ uuid, name })),
    sameAsRead: sameUuids,
    toEntry: (functions: { name: string }[]) => functions.map(({ name }) => ({ name })),
  },
  knowledge: {
    kind: 'reference' as const,
    required: false,
    supervisor: 'kept' as const,
    create: () => optional(uniqueByUuid(requestParts().reference)),
    update: () => optional(uniqueByUuid(requestParts().collectionAsRead)),
    supervisorBody: () => optional(z.array(requestParts().collectionAsRead)),
    response: () =>
      z.array(
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
    bundle: () => optional(requestParts().namedList),
    bundleResponse: () => z.array(responseParts().named),
    read: ({ record, resources }: FieldSource) => inOrder(record.collectionUuids, resources.collections).map(collectionOf),
    sameAsRead: sameUuids,
    toEntry: (collections: { name: string }[]) => collections.map(({ name }) => ({ name })),
  },
  heirs: assignedField({
    body: () => optional(z.array(z.strictObject({ role: z.string() }))),
    response: () => z.array(z.strictObject({ role: z.string() })),
    read: ({ heirs }) => heirs.map((role) => ({ role })),
  }),
};

export type AgentFields = typeof agentFields;
type Entry = AgentFields[keyof AgentFields];
type Plain = { [K in keyof AgentFields]: AgentFields[K] extends { kind: 'plain' } ? K : never }[keyof AgentFields];
type RequiredPlain = { [K in Plain]: AgentFields[K] extends { required: true } ? K : never }[Plain];
type Stored<K extends Plain> = NonNullable<z.output<ReturnType<AgentFields[K]['create']>>>;

/** The plain fields of a record: the required ones always, the optional ones when given. */
export type PlainContent = { [K in RequiredPlain]: Stored<K> } & { [K in Exclude<Plain, RequiredPlain>]?: Stored<K> };

/** Everything an agent's author decides, as the record stores it: what a restore sets again. */
export type AgentContent = PlainContent & ReferenceContent;

/** Model parameters as stored. */
export type Parameters = NonNullable<AgentContent['parameters']>;

const isPlain = (entry: Entry) => entry.kind === 'plain';

/** The plain fields, stored under their names. */
export const plainFields = namesWhere(agentFields, isPlain) as Plain[];

/**
 * What an update, a restore or a bundle's apply replaces of a record beyond what it sets again: the
 * optional plain fields (left out, they are cleared).
 */
export const replacedOnUpdate = namesWhere(agentFields, (entry) => isPlain(entry) && !('required' in entry && entry.required)) as Exclude<Plain, RequiredPlain>[];

type Kept = { [K in keyof AgentFields]: AgentFields[K] extends { supervisor: 'kept' } ? K : never }[keyof AgentFields];

/** Fields of a supervisor's read that its update does not change (a body may repeat them as read). */
export const keptFields = namesWhere(agentFields, (entry) => 'supervisor' in entry && entry.supervisor === 'kept') as Kept[];

type Assigned = { [K in keyof AgentFields]: AgentFields[K] extends { kind: 'assigned' } ? K : never }[keyof AgentFields];

/** The fields reads show and no body sets. */
export const assignedFields = namesWhere(agentFields, (entry) => entry.kind === 'assigned') as Assigned[];

/** The plain fields a supervisor's update sets. */
export const supervisorReplaces = namesWhere(agentFields, (entry) => isPlain(entry) && entry.supervisor === 'replaces') as Plain[];

/**
 * The plain fields `source` gives (a body, a bundle entry, a read: those of `names`), as a record
 * stores them: an optional one absent or `null` is left out.
 */
export const plainContentOf = (source: object, names: readonly Plain[] = plainFields): PlainContent => present(source, names) as PlainContent;

/** A record without the fields an update replaces (`replacedOnUpdate`): what it keeps before the update's fields are set. */
export const withoutReplaced = <T extends Partial<PlainContent>>(record: T): Omit<T, (typeof replacedOnUpdate)[number]> => without(record, replacedOnUpdate);
