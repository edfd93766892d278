import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { handler as agentsHandler } from '../../functions/agents/handler';
import { handler as supervisorsHandler } from '../../functions/supervisors/handler';
import { handler as usersHandler } from '../../functions/users/handler';
import { addClientPlugin, type ClientPlugin } from '../../shared/adapters/clients/client-options';
import { createTestUser, markDeleted, passwordToken } from '../support/auth-helpers';
import { adminApi, agentBody, agentsUrl, createAgent, freshBot, minimalAgentBody, seededBot, type FreshBot } from '../support/bot-helpers';
import { adminToken, stack } from '../support/stack';

/**
 * The round trips of an authenticated read, counted on the DynamoDB calls the handler makes in this
 * process (the handlers run here, as Lambda runs them; the stack's own calls are in another process).
 */

interface Call {
  command: string;
  /** `PK SK` of each key a GetItem or BatchGetItem asked for. */
  keys: string[];
}

let recording: Call[] | undefined;
type Next = (args: { input: object }) => Promise<{ output: object }>;
type KeyInput = { Key?: { PK: string; SK: string }; RequestItems?: Record<string, { Keys?: { PK: string; SK: string }[] }> };
const recorder: ClientPlugin = {
  applyToStack: (stack) =>
    (stack as unknown as { add(m: (next: Next, context: { commandName?: string }) => Next, o: object): void }).add(
      (next, context) => async (args) => {
        const input = args.input as KeyInput;
        const asked = input.Key ? [input.Key] : Object.values(input.RequestItems ?? {}).flatMap((request) => request.Keys ?? []);
        recording?.push({ command: (context.commandName ?? '').replace(/Command$/, ''), keys: asked.map(({ PK, SK }) => `${PK} ${SK}`) });
        return next(args);
      },
      { step: 'initialize', name: 'readPathRecorder' },
    ),
};
addClientPlugin(recorder);

const context = { awsRequestId: 'read-path-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** A sample event of `events/` with its placeholders filled in. */
function sampleEvent(route: string, values: Record<string, string>): APIGatewayProxyEventV2 {
  const source = readFileSync(join(__dirname, '..', '..', 'events', `${route}.json`), 'utf8');
  return JSON.parse(source.replace(/__([A-Z_]+)__/g, (name, key: string) => values[key] ?? name)) as APIGatewayProxyEventV2;
}

/** Runs one request through its function and answers the result with the DynamoDB calls it made, in order. */
async function invoke(handler: Handler, event: APIGatewayProxyEventV2): Promise<{ status: number; body: unknown; calls: Call[] }> {
  recording = [];
  try {
    const result = await handler(event, context);
    return { status: result.statusCode ?? 0, body: result.body ? JSON.parse(result.body) : undefined, calls: recording };
  } finally {
    recording = undefined;
  }
}

const commands = (calls: Call[]) => calls.map((call) => call.command);
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string; sub: string; email: string };
/** The credential stamp of the token's e-mail domain under an organization, which every caller's batch asks for too. */
const domainStampOf = (orgUuid: string, token: string) => `ORG#${orgUuid} CREDSTAMP#${claimsOf(token).email.split('@')[1]!.toLowerCase()}`;
const sessionOf = (token: string) => claimsOf(token).sid;

let bot: FreshBot;
let agentUuid: string;
let admin: { accessToken: string; orgUuid: string; sub: string };

beforeAll(async () => {
  bot = await freshBot();
  const token = await adminToken();
  admin = { ...token, sub: claimsOf(token.accessToken).sub };
  const created = await createAgent(bot, minimalAgentBody(bot, { functions: [{ uuid: bot.functions[0]!.uuid }] }));
  expect(created.status).toBe(201);
  agentUuid = created.body.uuid;
});

const botValues = (address: { orgUuid: string; envUuid: string; botUuid: string }, token: string) => ({
  ORG_UUID: address.orgUuid,
  ENV_UUID: address.envUuid,
  BOT_UUID: address.botUuid,
  ACCESS_TOKEN: token,
});

describe('an authenticated read reads the caller and what it addresses in one BatchGetItem', () => {
  test('GET an agent: session, user, environment, bot and agent in one batch, then the references in the next', async () => {
    const { status, calls } = await invoke(agentsHandler, sampleEvent('agents.get', { ...botValues(bot, admin.accessToken), AGENT_UUID: agentUuid }));

    expect(status).toBe(200);
    expect(commands(calls)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(calls[0]!.keys.sort()).toEqual(
      [
        `SESSION#${sessionOf(admin.accessToken)} SESSION`,
        `ORG#${bot.orgUuid} USER#${admin.sub}`,
        domainStampOf(bot.orgUuid, admin.accessToken),
        `ORG#${bot.orgUuid} ENV#${bot.envUuid}`,
        `ORG#${bot.orgUuid} ENV#${bot.envUuid}#BOT#${bot.botUuid}`,
        `BOT#${bot.botUuid} AGENT#${agentUuid}`,
      ].sort(),
    );
    expect(calls[1]!.keys.every((key) => key.startsWith(`BOT#${bot.botUuid} `) && !key.includes('AGENT#'))).toBe(true);
  });

  test('GET a supervisor: one batch, then its references and its heirs side by side', async () => {
    const values = { ...botValues(bot, admin.accessToken), SUPERVISOR_UUID: bot.supervisor!.uuid };
    const { status, calls } = await invoke(supervisorsHandler, sampleEvent('supervisors.get', values));

    expect(status).toBe(200);
    expect(calls[0]!.command).toBe('BatchGetItem');
    expect(calls[0]!.keys).toContain(`BOT#${bot.botUuid} AGENT#${bot.supervisor!.uuid}`);
    expect(commands(calls.slice(1)).sort()).toEqual(['BatchGetItem', 'Query']);
  });

  test('GET the default supervisor: the pointer comes in the batch, the supervisor next', async () => {
    const { status, calls } = await invoke(supervisorsHandler, sampleEvent('supervisors.default', botValues(bot, admin.accessToken)));

    expect(status).toBe(200);
    expect(calls[0]!.keys).toContain(`BOT#${bot.botUuid} DEFAULT_SUPERVISOR`);
    expect(commands(calls)).toEqual(['BatchGetItem', 'GetItem', expect.any(String), expect.any(String)]);
  });

  test('listing agents: one batch, then the listing', async () => {
    const { status, calls } = await invoke(agentsHandler, sampleEvent('agents.list', botValues(bot, admin.accessToken)));

    expect(status).toBe(200);
    expect(commands(calls)).toEqual(['BatchGetItem', 'Query']);
  });

  test('GET another user: the addressed user comes in the caller’s batch, nothing more', async () => {
    const other = await createTestUser();
    const values = { ORG_UUID: admin.orgUuid, USER_UUID: other.user.uuid, ACCESS_TOKEN: admin.accessToken };

    const { status, body, calls } = await invoke(usersHandler, sampleEvent('users.get', values));

    expect(status).toBe(200);
    expect(body).toMatchObject({ uuid: other.user.uuid, email: other.email });
    expect(commands(calls)).toEqual(['BatchGetItem']);
    expect(calls[0]!.keys).toHaveLength(4);
  });

  test('GET oneself: one batch of three keys, session, user and its domain’s stamp (the caller’s user is not asked twice)', async () => {
    const me = await createTestUser();
    const token = (await passwordToken(me)).access_token;

    const { status, body, calls } = await invoke(usersHandler, sampleEvent('users.get', { ORG_UUID: me.orgUuid, USER_UUID: me.user.uuid, ACCESS_TOKEN: token }));

    expect(status).toBe(200);
    expect(body).toMatchObject({ uuid: me.user.uuid });
    expect(calls).toEqual([{ command: 'BatchGetItem', keys: expect.arrayContaining([`ORG#${me.orgUuid} USER#${me.user.uuid}`, domainStampOf(me.orgUuid, token)]) }]);
    expect(calls[0]!.keys).toHaveLength(3);
  });

  test('GET an unknown user is a 404 after the one batch', async () => {
    const values = { ORG_UUID: admin.orgUuid, USER_UUID: 'no-such-user', ACCESS_TOKEN: admin.accessToken };

    const { status, calls } = await invoke(usersHandler, sampleEvent('users.get', values));

    expect(status).toBe(404);
    expect(commands(calls)).toEqual(['BatchGetItem']);
  });
});

describe('an agent read again asks for what it referenced in the caller’s batch', () => {
  const getAgent = (uuid: string) => invoke(agentsHandler, sampleEvent('agents.get', { ...botValues(bot, admin.accessToken), AGENT_UUID: uuid }));

  test('the second read of an agent is one BatchGetItem, its references in it, and answers the same', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;

    const first = await getAgent(agent.uuid);
    const second = await getAgent(agent.uuid);

    expect(commands(first.calls)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(commands(second.calls)).toEqual(['BatchGetItem']);
    expect(second.calls[0]!.keys).toEqual(expect.arrayContaining(first.calls[1]!.keys));
    expect(second.body).toEqual(first.body);
    expect(second.body).toEqual(agent);
  });

  test('an agent whose references changed elsewhere since is answered with the new ones', async () => {
    const agent = (await createAgent(bot, agentBody(bot))).body;
    await getAgent(agent.uuid);
    const changes = { persona: { uuid: bot.personas[1]!.uuid }, functions: [{ uuid: bot.functions[2]!.uuid }], knowledge: [{ uuid: bot.collections[1]!.uuid }] };
    const updated = await adminApi().put(agentsUrl(bot, `/${agent.uuid}`), agentBody(bot, { role: agent.role, ...changes }));
    expect(updated.status).toBe(200);

    const { status, body, calls } = await getAgent(agent.uuid);

    expect(status).toBe(200);
    expect(body).toEqual(updated.body);
    expect(body).toMatchObject({ persona: { name: 'Second persona' }, functions: [{ name: 'fnThree' }], knowledge: [{ name: 'FAQ' }] });
    expect(commands(calls)).toEqual(['BatchGetItem', 'BatchGetItem']);
  });
});

describe('the checks stay as they were', () => {
  test('a session ended by logout stops its access token at once: 401', async () => {
    const me = await createTestUser();
    const tokens = await passwordToken(me);
    const values = { ORG_UUID: me.orgUuid, USER_UUID: me.user.uuid, ACCESS_TOKEN: tokens.access_token };
    expect((await invoke(usersHandler, sampleEvent('users.get', values))).status).toBe(200);

    const logout = await fetch(`${stack().authUrl}/auth/realms/${me.realm}/protocol/openid-connect/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: stack().clientId, refresh_token: tokens.refresh_token }).toString(),
    });
    expect(logout.status).toBe(204);

    const { status, body, calls } = await invoke(usersHandler, sampleEvent('users.get', values));
    expect(status).toBe(401);
    expect(body).toMatchObject({ errorCode: 'UNAUTHENTICATED' });
    expect(commands(calls)).toEqual(['BatchGetItem']);
  });

  test('a deleted user’s token stops at once: 401, on the users and the agents areas', async () => {
    const me = await createTestUser({ role: 'ADMIN' });
    const token = (await passwordToken(me)).access_token;
    await markDeleted(me.orgUuid, me.user.uuid);

    const users = await invoke(usersHandler, sampleEvent('users.get', { ORG_UUID: me.orgUuid, USER_UUID: me.user.uuid, ACCESS_TOKEN: token }));
    const agents = await invoke(agentsHandler, sampleEvent('agents.get', { ...botValues(bot, token), AGENT_UUID: agentUuid }));

    expect([users.status, agents.status]).toEqual([401, 401]);
    expect(commands(agents.calls)).toEqual(['BatchGetItem']);
  });

  test('another organization’s path is a 404, as before (its user and domain stamp are read again under the session’s organization)', async () => {
    const globex = seededBot(1, 0, 0);

    const { status, body, calls } = await invoke(agentsHandler, sampleEvent('agents.get', { ...botValues(globex, admin.accessToken), AGENT_UUID: agentUuid }));

    expect(status).toBe(404);
    expect(body).toMatchObject({ errorCode: 'NOT_FOUND', message: 'The organization was not found' });
    expect(commands(calls)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(calls[1]!.keys).toEqual([`ORG#${admin.orgUuid} USER#${admin.sub}`, domainStampOf(admin.orgUuid, admin.accessToken)]);
  });

  test('a bad token is a 401 before any read and before validation', async () => {
    const forged = `${admin.accessToken.slice(0, -4)}AAAA`;

    const { status, calls } = await invoke(agentsHandler, sampleEvent('agents.get', { ...botValues(bot, forged), AGENT_UUID: 'not-a-uuid' }));

    expect(status).toBe(401);
    expect(calls).toEqual([]);
  });

  test('an ended session with an invalid path is a 401, not a 422', async () => {
    const me = await createTestUser();
    const tokens = await passwordToken(me);
    await fetch(`${stack().authUrl}/auth/realms/${me.realm}/protocol/openid-connect/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: stack().clientId, refresh_token: tokens.refresh_token }).toString(),
    });

    const { status } = await invoke(agentsHandler, sampleEvent('agents.get', { ...botValues(bot, tokens.access_token), AGENT_UUID: 'not-a-uuid' }));

    expect(status).toBe(401);
  });

  test('a valid caller with an invalid path is a 422 after the caller’s batch, with nothing prefetched', async () => {
    const { status, calls } = await invoke(agentsHandler, sampleEvent('agents.get', { ...botValues(bot, admin.accessToken), AGENT_UUID: 'not-a-uuid' }));

    expect(status).toBe(422);
    expect(calls).toEqual([{ command: 'BatchGetItem', keys: expect.any(Array) }]);
    expect(calls[0]!.keys).toHaveLength(3);
  });
});
