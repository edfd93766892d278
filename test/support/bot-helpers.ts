import type { AgentResponse, AgentSummary } from '../../shared/domain/agents/agent.mapper';
import type { Page } from '../../shared/edge/http/page';
import type { AgentRecord } from '../../shared/domain/agents/agent.repository';
import type { BotFunction, Collection, Persona } from '../../shared/domain/org/org.entities';
import {
  addBot,
  addCollection,
  addEnvironment,
  addFunction,
  addPersona,
  addSupervisor,
} from '../../shared/app/operator/operator.service';
import { keys, type ItemKey } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import type { Permission, Role } from '../../shared/domain/users/user.entities';
import { registerUser } from '../../shared/domain/users/user-registration';
import { TEST_PASSWORD, passwordToken } from './auth-helpers';
import { httpClient, seededAdminToken, type ApiResponse, type TokenSource } from './http-client';
import { stack, unique } from './stack';

/** Helpers for the agent-configuration area: fresh bots of one's own, bodies, URLs, a typed client. */

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
  const env = await addEnvironment(orgUuid, `Test env ${unique()}`);
  return { orgUuid, envUuid: env.uuid };
}

/**
 * A new bot with two personas (the first with an image), three functions and two collections, and
 * (unless `supervisor: false`) a default supervisor. Created in a new environment unless one is given.
 */
export async function freshBot(
  options: { orgIndex?: number; envUuid?: string; supervisor?: boolean } = {},
): Promise<FreshBot> {
  const orgUuid = stack().orgs[options.orgIndex ?? 0]!.uuid;
  const envUuid = options.envUuid ?? (await freshEnvironment(options.orgIndex)).envUuid;
  const bot = await addBot(orgUuid, envUuid, `Test bot ${unique()}`);
  const personas = [
    await addPersona(bot.uuid, {
      name: 'Test guide',
      image: 'https://images.example.test/guide.png',
      backstory: 'Guides test customers.',
      personality: 'Calm',
      communicationStyle: 'WITTY_AND_CASUAL',
    }),
    await addPersona(bot.uuid, { name: 'Second persona' }),
  ];
  const functions = [await addFunction(bot.uuid, 'fnOne'), await addFunction(bot.uuid, 'fnTwo'), await addFunction(bot.uuid, 'fnThree')];
  const collections = [
    await addCollection(bot.uuid, {
      name: 'Manuals',
      description: 'Every manual',
      documentCount: 12,
      searchType: { type: 'SEMANTIC', semanticWeight: 100, fullTextWeight: 0 },
      previousUserInput: 2,
      threshold: 0.75,
      topK: 8,
    }),
    await addCollection(bot.uuid, { name: 'FAQ' }),
  ];
  const supervisor =
    options.supervisor === false
      ? undefined
      : await addSupervisor(bot.uuid, {
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

/** The URL of a path under a bot in the agent-configuration area. */
export function botUrl(bot: BotAddress, path: string): string {
  return `${stack().apiUrl}/${stack().generativeSubpath}/org/${bot.orgUuid}/env/${bot.envUuid}/bot/${bot.botUuid}${path}`;
}

/** The URL of a bot's agents, or of a path under them. */
export const agentsUrl = (bot: BotAddress, path = '') => botUrl(bot, `/agents${path}`);

/** A valid agent create body for a fresh bot, with every field; `overrides` replace top-level fields. */
export function agentBody(bot: FreshBot, overrides: Record<string, unknown> = {}): Record<string, unknown> {
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
    ...overrides,
  };
}

/** A minimal valid agent create body: only the required fields. */
export function minimalAgentBody(bot: FreshBot, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { role: `Agent ${unique()}`, goal: 'A goal', persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false, ...overrides };
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

/** A user of a seeded organization with a role and grants (real store and Cognito emulator), signed in. */
export async function userWithGrants(role: Role, permissions: Permission[], orgIndex = 0): Promise<{ userUuid: string; api: Api }> {
  const org = stack().orgs[orgIndex]!;
  const email = `grants-${unique()}@example.test`;
  const user = await registerUser({ orgUuid: org.uuid, name: `${role} user`, email, password: TEST_PASSWORD, role, permissions });
  const token = (await passwordToken({ realm: org.name, email, password: TEST_PASSWORD })).access_token;
  return { userUuid: user.uuid, api: api(token) };
}

/** Creates an agent through the API (as org 0's ADMIN unless told) and fails the test unless it answers 201. */
export async function createAgent(bot: BotAddress, body: Record<string, unknown>, client: Api = adminApi()): Promise<ApiResponse<AgentDto>> {
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
