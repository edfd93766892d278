import {
  agentCreateSchema,
  agentPathSchema,
  agentRevisionPathSchema,
  agentUpdateSchema,
  botPathSchema,
  listQuerySchema,
  quicksearchQuerySchema,
  revisionDiffQuerySchema,
  revisionListQuerySchema,
  supervisorPathSchema,
  supervisorRevisionPathSchema,
  supervisorUpdateSchema,
} from '../../domain/agents/agent.schemas';
import { agentPageSchema, agentSchema, revisionDiffSchema, revisionPageSchema } from '../../domain/agents/agent.responses';
import { agent, constraint, parameters, persona, tag } from './examples';
import { operationsUnder, type Outcome } from './operation';

/** Supervisors and agents of a bot (docs/api/agents.md) and their revisions, all under one bot. */

const BOT = '/org/{orgUUID}/env/{envUUID}/bot/{botUUID}';
const supervisor = operationsUnder('supervisors', 'generative', BOT);
const agents = operationsUnder('agents', 'generative', BOT);

const agentRead = <const S extends number = 200>(description: string, status: S = 200 as S) => ({ status, description, json: agentSchema, headers: ['ETag'] }) satisfies Outcome;

/** The four revision operations of supervisors or agents: listing, one revision, a diff, a restore. */
function revisionOperations<const P extends string>(
  declare: typeof supervisor | typeof agents,
  prefix: P,
  item: string,
  noun: string,
  schemas: { path: typeof supervisorPathSchema | typeof agentPathSchema; revisionPath: typeof supervisorRevisionPathSchema | typeof agentRevisionPathSchema },
) {
  return {
    revisions: declare({
      id: `${prefix}.revisions`,
      method: 'GET',
      path: `/${prefix}/{${item}}/revisions`,
      access: { bot: 'read' },
      request: { path: schemas.path, query: revisionListQuerySchema },
      summary: `List the revisions of ${noun}, newest first`,
      responses: [{ status: 200, description: 'A page of revisions (1-based); revision N is the write that gave ETag "N"', json: revisionPageSchema }],
    }),
    revision: declare({
      id: `${prefix}.revision`,
      method: 'GET',
      path: `/${prefix}/{${item}}/revisions/{revision}`,
      access: { bot: 'read' },
      request: { path: schemas.revisionPath },
      summary: `${noun[0]!.toUpperCase()}${noun.slice(1)} as it read right after a revision`,
      responses: [{ status: 200, description: 'The Agent of that revision', json: agentSchema }],
    }),
    revisionDiff: declare({
      id: `${prefix}.revisionDiff`,
      method: 'GET',
      path: `/${prefix}/{${item}}/revisions/{revision}/diff`,
      access: { bot: 'read' },
      request: { path: schemas.revisionPath, query: revisionDiffQuerySchema },
      summary: 'What a revision changed: an RFC 6902 patch from another revision (by default the one before)',
      responses: [{ status: 200, description: 'The patch', json: revisionDiffSchema }],
    }),
    restore: declare({
      id: `${prefix}.restore`,
      method: 'POST',
      path: `/${prefix}/{${item}}/revisions/{revision}/restore`,
      access: { bot: 'write' },
      request: { path: schemas.revisionPath, headers: ['IfMatch'] },
      summary: `Make the content of ${noun} that of a revision (a new revision, RESTORED)`,
      responses: [agentRead('The content restored, with its new ETag')],
    }),
  };
}

export const supervisorsApi = {
  list: supervisor({
    id: 'supervisors.list',
    method: 'GET',
    path: '/supervisors',
    access: { bot: 'read' },
    request: { path: botPathSchema, query: listQuerySchema },
    summary: 'List supervisors of a bot',
    responses: [{ status: 200, description: 'A page of supervisors (1-based)', json: agentPageSchema }],
  }),
  default: supervisor({
    id: 'supervisors.default',
    method: 'GET',
    path: '/supervisors/default',
    access: { bot: 'read' },
    request: { path: botPathSchema },
    summary: 'The default supervisor of the bot',
    responses: [agentRead('The supervisor')],
  }),
  get: supervisor({
    id: 'supervisors.get',
    method: 'GET',
    path: '/supervisors/{supervisorUUID}',
    access: { bot: 'read' },
    request: { path: supervisorPathSchema },
    summary: 'Read a supervisor',
    responses: [agentRead('The supervisor')],
  }),
  update: supervisor({
    id: 'supervisors.update',
    method: 'PUT',
    path: '/supervisors/{supervisorUUID}',
    access: { bot: 'write' },
    request: { path: supervisorPathSchema, body: supervisorUpdateSchema, headers: ['IfMatch'] },
    summary: 'Update a supervisor',
    responses: [agentRead('The supervisor, updated')],
    example: {
      persona: { uuid: persona },
      instructions: 'Route each question to the agent whose role fits it; answer greetings yourself.',
      guardrails: 'Stay on the topics of Acme products.',
      constraints: [{ uuid: constraint, value: 'Answer in the language of the question.' }],
      tags: [{ uuid: tag, name: '#support' }],
      parameters,
    },
  }),
  ...revisionOperations(supervisor, 'supervisors', 'supervisorUUID', 'the supervisor', {
    path: supervisorPathSchema,
    revisionPath: supervisorRevisionPathSchema,
  }),
};

export const agentsApi = {
  list: agents({
    id: 'agents.list',
    method: 'GET',
    path: '/agents',
    access: { bot: 'read' },
    request: { path: botPathSchema, query: listQuerySchema },
    summary: 'List agents of a bot',
    responses: [{ status: 200, description: 'A page of agents (1-based)', json: agentPageSchema }],
  }),
  quicksearch: agents({
    id: 'agents.quicksearch',
    method: 'GET',
    path: '/agents/quicksearch',
    access: { bot: 'read' },
    request: { path: botPathSchema, query: quicksearchQuerySchema },
    summary: 'Roles of agents matching a term',
    responses: [{ status: 200, description: 'Matching roles', text: { mediaType: 'text/plain', description: 'One role per line' } }],
  }),
  create: agents({
    id: 'agents.create',
    method: 'POST',
    path: '/agents',
    access: { bot: 'write' },
    request: { path: botPathSchema, body: agentCreateSchema, headers: ['IdempotencyKey'] },
    summary: 'Create an agent',
    description: 'Idempotent with `Idempotency-Key`: a replay creates no second agent.',
    responses: [{ ...agentRead('The agent created', 201), headers: ['ETag', 'Idempotent-Replayed'] }],
    example: { ...agent, constraints: [{ value: 'Refer refunds over 500 EUR to a person.' }] },
  }),
  get: agents({
    id: 'agents.get',
    method: 'GET',
    path: '/agents/{agentUUID}',
    access: { bot: 'read' },
    request: { path: agentPathSchema },
    summary: 'Read an agent',
    responses: [agentRead('The agent')],
  }),
  update: agents({
    id: 'agents.update',
    method: 'PUT',
    path: '/agents/{agentUUID}',
    access: { bot: 'write' },
    request: { path: agentPathSchema, body: agentUpdateSchema, headers: ['IfMatch'] },
    summary: 'Update an agent',
    responses: [agentRead('The agent, updated')],
    example: { ...agent, constraints: [{ uuid: constraint, value: 'Refer refunds over 1000 EUR to a person.' }] },
  }),
  ...revisionOperations(agents, 'agents', 'agentUUID', 'the agent', { path: agentPathSchema, revisionPath: agentRevisionPathSchema }),
};
