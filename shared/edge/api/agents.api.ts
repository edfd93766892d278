import type * as z from 'zod/mini';
import { agentSchemas } from '../../domain/agents/agent.schemas';
import { agentResponses } from '../../domain/agents/agent.responses';
import { agent, constraint, parameters, persona, tag } from './examples';
import { listing, operationsUnder, type Outcome } from './operation';

/** Supervisors and agents of a bot (docs/api/agents.md) and their revisions, all under one bot. */

const BOT = '/org/{orgUUID}/env/{envUUID}/bot/{botUUID}';
const supervisor = operationsUnder('supervisors', 'generative', BOT);
const agents = operationsUnder('agents', 'generative', BOT);
/** The groups of supervisors and of agents, whose paths start with the group's name. */
type Kind = 'supervisors' | 'agents';

const agentRead = <const S extends number = 200>(description: string, status: S = 200 as S) => ({ status, description, json: () => agentResponses().agentSchema, headers: ['ETag'] }) satisfies Outcome;

/** The listing of a bot's supervisors or agents, a page at a time. */
const listOf = <const G extends Kind>(group: G) =>
  operationsUnder(group, 'generative', BOT)(
    listing({
      id: `${group}.list`,
      path: `/${group}`,
      access: { bot: 'read' },
      request: { path: () => agentSchemas().botPathSchema, query: () => agentSchemas().listQuerySchema },
      summary: `List ${group} of a bot`,
      page: { items: group, schema: () => agentResponses().agentPageSchema, base: 1 },
    }),
  );

/** How a summary names one supervisor or agent. */
interface Nouns {
  a: string;
  the: string;
}

const capitalized = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;

/**
 * What supervisors and agents both do with one of them, at its path: read it, update it, and the four
 * revision operations (listing, one revision, a diff, a restore).
 */
function itemOperations<const G extends Kind, const I extends string, const P extends () => z.ZodMiniType, const R extends () => z.ZodMiniType, const U extends () => z.ZodMiniType>(
  group: G,
  item: I,
  noun: Nouns,
  schemas: { path: P; revisionPath: R; update: U },
  updateExample: unknown,
) {
  const declare = operationsUnder(group, 'generative', BOT);
  return {
    get: declare({
      id: `${group}.get`,
      method: 'GET',
      path: `/${group}/{${item}}`,
      access: { bot: 'read' },
      request: { path: schemas.path },
      summary: `Read ${noun.a}`,
      responses: [agentRead(capitalized(noun.the))],
    }),
    update: declare({
      id: `${group}.update`,
      method: 'PUT',
      path: `/${group}/{${item}}`,
      access: { bot: 'write' },
      request: { path: schemas.path, body: schemas.update, headers: ['IfMatch'] },
      summary: `Update ${noun.a}`,
      responses: [agentRead(`${capitalized(noun.the)}, updated`)],
      example: updateExample,
    }),
    revisions: declare(
      listing({
        id: `${group}.revisions`,
        path: `/${group}/{${item}}/revisions`,
        access: { bot: 'read' },
        request: { path: schemas.path, query: () => agentSchemas().revisionListQuerySchema },
        summary: `List the revisions of ${noun.the}, newest first`,
        page: { items: 'revisions', schema: () => agentResponses().revisionPageSchema, base: 1, note: 'revision N is the write that gave ETag "N"' },
      }),
    ),
    revision: declare({
      id: `${group}.revision`,
      method: 'GET',
      path: `/${group}/{${item}}/revisions/{revision}`,
      access: { bot: 'read' },
      request: { path: schemas.revisionPath },
      summary: `${capitalized(noun.the)} as it read right after a revision`,
      responses: [{ status: 200, description: 'The Agent of that revision', json: () => agentResponses().agentSchema }],
    }),
    revisionDiff: declare({
      id: `${group}.revisionDiff`,
      method: 'GET',
      path: `/${group}/{${item}}/revisions/{revision}/diff`,
      access: { bot: 'read' },
      request: { path: schemas.revisionPath, query: () => agentSchemas().revisionDiffQuerySchema },
      summary: 'What a revision changed: an RFC 6902 patch from another revision (by default the one before)',
      responses: [{ status: 200, description: 'The patch', json: () => agentResponses().revisionDiffSchema }],
    }),
    restore: declare({
      id: `${group}.restore`,
      method: 'POST',
      path: `/${group}/{${item}}/revisions/{revision}/restore`,
      access: { bot: 'write' },
      request: { path: schemas.revisionPath, headers: ['IfMatch'] },
      summary: `Make the content of ${noun.the} that of a revision (a new revision, RESTORED)`,
      responses: [agentRead('The content restored, with its new ETag')],
    }),
  };
}

export const supervisorsApi = {
  list: listOf('supervisors'),
  default: supervisor({
    id: 'supervisors.default',
    method: 'GET',
    path: '/supervisors/default',
    access: { bot: 'read' },
    request: { path: () => agentSchemas().botPathSchema },
    summary: 'The default supervisor of the bot',
    responses: [agentRead('The supervisor')],
  }),
  ...itemOperations(
    'supervisors',
    'supervisorUUID',
    { a: 'a supervisor', the: 'the supervisor' },
    { path: () => agentSchemas().supervisorPathSchema, revisionPath: () => agentSchemas().supervisorRevisionPathSchema, update: () => agentSchemas().supervisorUpdateSchema },
    {
      persona: { uuid: persona },
      instructions: 'Route each question to the agent whose role fits it; answer greetings yourself.',
      guardrails: 'Stay on the topics of Acme products.',
      constraints: [{ uuid: constraint, value: 'Answer in the language of the question.' }],
      tags: [{ uuid: tag, name: '#support' }],
      parameters,
    },
  ),
};

export const agentsApi = {
  list: listOf('agents'),
  quicksearch: agents({
    id: 'agents.quicksearch',
    method: 'GET',
    path: '/agents/quicksearch',
    access: { bot: 'read' },
    request: { path: () => agentSchemas().botPathSchema, query: () => agentSchemas().quicksearchQuerySchema },
    summary: 'Roles of agents matching a term',
    responses: [{ status: 200, description: 'Matching roles', text: { mediaType: 'text/plain', description: 'One role per line' } }],
  }),
  create: agents({
    id: 'agents.create',
    method: 'POST',
    path: '/agents',
    access: { bot: 'write' },
    request: { path: () => agentSchemas().botPathSchema, body: () => agentSchemas().agentCreateSchema, headers: ['IdempotencyKey'] },
    summary: 'Create an agent',
    description: 'Idempotent with `Idempotency-Key`: a replay creates no second agent.',
    responses: [{ ...agentRead('The agent created', 201), headers: ['ETag', 'Idempotent-Replayed'] }],
    example: { ...agent, constraints: [{ value: 'Refer refunds over 500 EUR to a person.' }] },
  }),
  ...itemOperations(
    'agents',
    'agentUUID',
    { a: 'an agent', the: 'the agent' },
    { path: () => agentSchemas().agentPathSchema, revisionPath: () => agentSchemas().agentRevisionPathSchema, update: () => agentSchemas().agentUpdateSchema },
    { ...agent, constraints: [{ uuid: constraint, value: 'Refer refunds over 1000 EUR to a person.' }] },
  ),
};
