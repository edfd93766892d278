import type { AgentResponse, AgentSummary } from '../../shared/domain/agents/agent.mapper';
import type { Page } from '../../shared/edge/http/page';
import type { AgentRecord } from '../../shared/domain/agents/agent.repository';
import type { BotFunction, Collection, Persona } from '../../shared/domain/org/org.entities';
import * as operator from '../../shared/app/operator/operator.service';
import { keys, type ItemKey } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import type { Permission, Role } from '../../shared/domain/users/user.entities';
import { registerUser } from '../../shared/app/users/user-registration';
import { answer, stackApiClient, type ApiClient } from './api-client';
import { TEST_PASSWORD, passwordToken } from './auth-helpers';
import { GUIDE_PERSONA, MANUALS_COLLECTION } from './bot-fixtures';
import type { operations } from '../../clients/typescript/src/generated/api-types';
import { httpClient, seededAdminToken, type ApiResponse, type TokenSource } from './http-client';
import { stack, unique } from './stack';

/** Helpers for the agent-configuration area: fresh bots of one's own, bodies, paths and URLs, clients. */

/** Where a bot lives: enough to build its paths. */
export interface BotAddress {
  orgUuid: string;
  envUuid: string;
  botUuid: string;
}

/** A bot created for one test (or one file), so counts, order and pages are not disturbed by others. */
export interface FreshBot extends BotAddress {
  name: string;
  personas: Persona[];
  functions: BotFunction[];
  collections: Collection[];
  supervisor?: AgentRecord;
}

/** A new environment of a seeded organization (active). */
export async function freshEnvironment(orgIndex = 0): Promise<{ orgUuid: string; envUuid: string }> {
  const orgUuid = stack().orgs[orgIndex]!.uuid;
  const env = await operator.addEnvironment(orgUuid, `Test env ${unique()}`);
  return { orgUuid, envUuid: env.uuid };
}

/**
 * A new bot with two personas (the first with an image), three functions and two collections, and
 * (unless `supervisor: false`) a default supervisor. Created in a new environment unless one is given.
 */
export async function freshBot(
  options: { orgIndex?: number; orgUuid?: string; envUuid?: string; supervisor?: boolean } = {},
): Promise<FreshBot> {
  const orgUuid = options.orgUuid ?? stack().orgs[options.orgIndex ?? 0]!.uuid;
  const envUuid = options.envUuid ?? (await freshEnvironment(options.orgIndex)).envUuid;
  const bot = await operator.addBot(orgUuid, envUuid, `Test bot ${unique()}`);
  const personas = [await operator.addPersona(bot.uuid, GUIDE_PERSONA), await operator.addPersona(bot.uuid, { name: 'Second persona' })];
  const functions = [
    await operator.addFunction(bot.uuid, 'fnOne'),
    await operator.addFunction(bot.uuid, 'fnTwo'),
    await operator.addFunction(bot.uuid, 'fnThree'),
  ];
  const collections = [await operator.addCollection(bot.uuid, MANUALS_COLLECTION), await operator.addCollection(bot.uuid, { name: 'FAQ' })];
  const supervisor =
    options.supervisor === false
      ? undefined
      : await operator.addSupervisor(bot.uuid, {
          role: 'Test supervisor',
          goal: 'Route each test conversation',
          personaUuid: personas[0]!.uuid,
          instructions: 'Hand over to the right agent.',
          guardrails: 'Stay polite.',
        });
  return { orgUuid, envUuid, botUuid: bot.uuid, name: bot.name, personas, functions, collections, supervisor };
}

/** A seeded bot's address (org 0 unless told), for reads and for foreign-reference tests. */
export function seededBot(orgIndex = 0, envIndex = 0, botIndex = 0) {
  const org = stack().orgs[orgIndex]!;
  const env = org.environments[envIndex]!;
  const bot = env.bots[botIndex]!;
  return { orgUuid: org.uuid, envUuid: env.uuid, botUuid: bot.uuid, seeded: bot };
}

/** A seeded bot of organization 0 that no fresh bot is: its personas, functions and collections are another bot's. */
export const foreignBot = () => seededBot(0, 0, 1).seeded;

/** The URL of a path under a bot in the agent-configuration area. */
export function botUrl(bot: BotAddress, path: string): string {
  return `${stack().apiUrl}/${stack().generativeSubpath}/org/${bot.orgUuid}/env/${bot.envUuid}/bot/${bot.botUuid}${path}`;
}

/** The URL of a bot's agents, or of a path under them. */
export const agentsUrl = (bot: BotAddress, path = '') => botUrl(bot, `/agents${path}`);

/** The URL of a bot's supervisors, or of a path under them. */
export const supervisorsUrl = (bot: BotAddress, path = '') => botUrl(bot, `/supervisors${path}`);

/** The document's paths of a bot's agents and supervisors, for the typed client (`api-client.ts`). */
const BOT_PATH = '/generative/org/{orgUUID}/env/{envUUID}/bot/{botUUID}';
const AGENTS = `${BOT_PATH}/agents` as const;
const AGENT = `${BOT_PATH}/agents/{agentUUID}` as const;
const SUPERVISORS = `${BOT_PATH}/supervisors` as const;
const SUPERVISOR = `${BOT_PATH}/supervisors/{supervisorUUID}` as const;

type Query<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;
type UpdateBody<Id extends 'agents.update' | 'supervisors.update'> = operations[Id]['requestBody']['content']['application/json'];

/** The supervisor update body as the OpenAPI document types it. */
export type SupervisorUpdate = UpdateBody<'supervisors.update'>;

/** A bot's path parameters, as the typed client takes them. */
const botParams = (bot: BotAddress) => ({ path: { orgUUID: bot.orgUuid, envUUID: bot.envUuid, botUUID: bot.botUuid } });

/**
 * A bot's agents through the typed client (org 0's ADMIN unless told), one function per operation of
 * the document, each read as the tests read an answer (`answer` of `api-client.ts`).
 */
export function agentsOf(bot: BotAddress, client: ApiClient = adminClient()) {
  const params = botParams(bot);
  const ofAgent = (agentUUID: string) => ({ path: { ...params.path, agentUUID } });
  return {
    create: (body: AgentBody) => answer(client.POST(AGENTS, { params, body })),
    get: (agentUUID: string) => answer(client.GET(AGENT, { params: ofAgent(agentUUID) })),
    update: (agentUUID: string, body: UpdateBody<'agents.update'>, ifMatch?: string) =>
      answer(client.PUT(AGENT, { params: { ...ofAgent(agentUUID), header: { 'If-Match': ifMatch } }, body })),
    list: (query: Query<'agents.list'> = {}) => answer(client.GET(AGENTS, { params: { ...params, query } })),
    quicksearch: (query: Query<'agents.quicksearch'>) =>
      answer(client.GET(`${AGENTS}/quicksearch`, { params: { ...params, query }, parseAs: 'text' })),
  };
}

/** A bot's supervisors through the typed client (org 0's ADMIN unless told), as `agentsOf`. */
export function supervisorsOf(bot: BotAddress, client: ApiClient = adminClient()) {
  const params = botParams(bot);
  const ofSupervisor = (supervisorUUID: string) => ({ path: { ...params.path, supervisorUUID } });
  return {
    list: (query: Query<'supervisors.list'> = {}) => answer(client.GET(SUPERVISORS, { params: { ...params, query } })),
    default: () => answer(client.GET(`${SUPERVISORS}/default`, { params })),
    get: (supervisorUUID: string) => answer(client.GET(SUPERVISOR, { params: ofSupervisor(supervisorUUID) })),
    update: (supervisorUUID: string, body: UpdateBody<'supervisors.update'>, ifMatch?: string) =>
      answer(client.PUT(SUPERVISOR, { params: { ...ofSupervisor(supervisorUUID), header: { 'If-Match': ifMatch } }, body })),
  };
}

/** The revisions of one agent or supervisor through the typed client (org 0's ADMIN unless told): list, read, diff and restore. */
export function revisionsOf(bot: BotAddress, kind: 'agent' | 'supervisor', uuid: string, client: ApiClient = adminClient()) {
  const item = kind === 'agent' ? AGENT : SUPERVISOR;
  // The item's path names one of the two ids; the other is not used.
  const params = { path: { ...botParams(bot).path, agentUUID: uuid, supervisorUUID: uuid } };
  const ofRevision = (revision: number) => ({ path: { ...params.path, revision: String(revision) } });
  return {
    list: (query: Query<'agents.revisions'> = {}) => answer(client.GET(`${item}/revisions`, { params: { ...params, query } })),
    get: (revision: number) => answer(client.GET(`${item}/revisions/{revision}`, { params: ofRevision(revision) })),
    diff: (revision: number, query: Query<'agents.revisionDiff'> = {}) =>
      answer(client.GET(`${item}/revisions/{revision}/diff`, { params: { ...ofRevision(revision), query } })),
    restore: (revision: number, ifMatch?: string) =>
      answer(client.POST(`${item}/revisions/{revision}/restore`, { params: { ...ofRevision(revision), header: { 'If-Match': ifMatch } } })),
  };
}

/** The agent create body as the OpenAPI document types it. */
export type AgentBody = operations['agents.create']['requestBody']['content']['application/json'];

/** A body with some fields replaced: typed as the replacements are, so one the OpenAPI document forbids does not pass for a valid one. */
export type Overridden<Body, Overrides> = Omit<Body, keyof Overrides> & Overrides;

function override<Body extends object, O extends object>(body: Body, overrides?: O): Overridden<Body, O> {
  return { ...body, ...overrides } as unknown as Overridden<Body, O>;
}

/** A valid agent create body for a fresh bot, with every field; `overrides` replace top-level fields. */
export function agentBody<O extends object = object>(bot: FreshBot, overrides?: O): Overridden<ReturnType<typeof everyField>, O> {
  return override(everyField(bot), overrides);
}

function everyField(bot: FreshBot) {
  return {
    role: `Agent ${unique()}`,
    goal: 'Help the customer with a test question',
    instructions: 'Be brief.',
    guardrails: 'Never promise refunds.',
    persona: { uuid: bot.personas[0]!.uuid },
    inheritFromSupervisor: true,
    constraints: [{ value: 'Always confirm the order number' }, { value: 'Never share e-mail addresses' }],
    tags: [{ name: `#t${unique()}` }],
    parameters: { maximumTokens: 500, requestTimeout: 30000, temperature: 0.7, topP: 0.9, presencePenalty: 0.5, frequencyPenalty: -0.5 },
    functions: [{ uuid: bot.functions[1]!.uuid }, { uuid: bot.functions[0]!.uuid }],
    knowledge: [{ uuid: bot.collections[0]!.uuid }],
  } satisfies AgentBody;
}

/** A minimal valid agent create body: only the required fields. */
export function minimalAgentBody<O extends object = object>(bot: FreshBot, overrides?: O): Overridden<AgentBody, O> {
  const required: AgentBody = { role: `Agent ${unique()}`, goal: 'A goal', persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false };
  return override(required, overrides);
}

/** The Agent as a client reads it: the product's response type. */
export type AgentDto = AgentResponse;

/** A listing's content item. */
export type SummaryDto = AgentSummary;

/** The Page (docs/api/README.md#pages). */
export type PageDto<T = SummaryDto> = Page<T>;

/** A client of the agent-configuration area; bodies default to the Agent, listings name `PageDto`. */
export const api = (token: TokenSource) => httpClient<AgentDto>(token);
export type Api = ReturnType<typeof api>;

/** A client with a seeded organization's ADMIN token. */
export const adminApi = (orgIndex = 0): Api => api(seededAdminToken(orgIndex));

/** The typed, contract-checked client (`api-client.ts`) with a seeded organization's ADMIN token. */
export const adminClient = (orgIndex = 0): ApiClient => stackApiClient(seededAdminToken(orgIndex));

/** A user of a seeded organization with a role and grants (real store and Cognito emulator), signed in. */
export async function userWithGrants(role: Role, permissions: Permission[], orgIndex = 0): Promise<{ userUuid: string; api: Api }> {
  const org = stack().orgs[orgIndex]!;
  const email = `grants-${unique()}@example.test`;
  const user = await registerUser({ orgUuid: org.uuid, name: `${role} user`, email, password: TEST_PASSWORD, role, permissions });
  const token = (await passwordToken({ realm: org.name, email, password: TEST_PASSWORD })).access_token;
  return { userUuid: user.uuid, api: api(token) };
}

/** Creates an agent through the API (as org 0's ADMIN unless told) and fails the test unless it answers 201. */
export async function createAgent(bot: BotAddress, body: object, client: Api = adminApi()): Promise<ApiResponse<AgentDto>> {
  const response = await client.post(agentsUrl(bot), body);
  if (response.status !== 201) throw new Error(`Create failed with ${response.status}: ${response.text}`);
  return response;
}

/** Sets `active` to false on an existing item; `what` names it in the error when there is none. */
async function markInactive({ PK, SK }: ItemKey, what: string): Promise<void> {
  const updated = await updateItem({
    Key: { PK, SK },
    UpdateExpression: 'SET #active = :no',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#active': 'active' },
    ExpressionAttributeValues: { ':no': false },
  });
  if (!updated) throw new Error(`No ${what}`);
}

/** Marks an environment inactive in the store (no API does that yet). */
export async function deactivateEnvironment(orgUuid: string, envUuid: string): Promise<void> {
  await markInactive(keys.environment(orgUuid, envUuid), `environment ${envUuid}`);
}

/** Marks a bot inactive in the store (no API does that yet). */
export async function deactivateBot(bot: BotAddress): Promise<void> {
  await markInactive(keys.bot(bot.orgUuid, bot.envUuid, bot.botUuid), `bot ${bot.botUuid}`);
}

/** The `sort` of every listing (and of its `pageable`). */
export const SORTED = { unsorted: false, sorted: true, empty: false };

/** The fields of a listing's content item (docs/api/agents.md#listings). */
export const SUMMARY_FIELDS = ['createdAt', 'goal', 'inheritFromSupervisor', 'role', 'tags', 'updatedAt', 'uuid'];

/** The fields of the Agent. */
export const AGENT_FIELDS = [
  'constraints',
  'flowUUID',
  'functions',
  'goal',
  'guardrails',
  'heirs',
  'inheritFromSupervisor',
  'instructions',
  'knowledge',
  'parameters',
  'persona',
  'role',
  'tags',
  'uuid',
];

/** Every listing item of a bot (agents or supervisors), read page by page at the largest size. */
export async function listAll(client: Api, bot: BotAddress, resource: 'agents' | 'supervisors', query = ''): Promise<SummaryDto[]> {
  const items: SummaryDto[] = [];
  for (let page = 1; ; page++) {
    const response = await client.get<PageDto>(botUrl(bot, `/${resource}?size=100&page=${page}${query}`));
    if (response.status !== 200) throw new Error(`Listing failed with ${response.status}: ${response.text}`);
    items.push(...response.body.content);
    if (response.body.last) return items;
  }
}
