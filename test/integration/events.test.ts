import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { subpathsFromEnv } from '../../shared/config';
import { renderMail, type Language, type MailKind } from '../../shared/mail/mail.templates';
import { resolveRoutes } from '../../shared/routes';
import type { UserResponse } from '../../shared/users/user.mapper';
import { TEST_PASSWORD, bearer, passwordToken } from '../support/auth-helpers';
import { adminToken, requestToken, stack, unique, userArea } from '../support/stack';

const eventsDir = join(__dirname, '..', '..', 'events');
const files = readdirSync(eventsDir).filter((name) => name.endsWith('.json'));
const routes = resolveRoutes(subpathsFromEnv());

const context = { awsRequestId: 'events-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** The uuid of the first item a GET of the seeded bot's area answers (default supervisor, first agent). */
async function firstUuid(token: string, path: string): Promise<string> {
  const { orgs, apiUrl, generativeSubpath } = stack();
  const org = orgs[0]!;
  const bot = org.environments[0]!.bots[0]!;
  const url = `${apiUrl}/${generativeSubpath}/org/${org.uuid}/env/${org.environments[0]!.uuid}/bot/${bot.uuid}${path}`;
  const body = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as { uuid?: string; content?: { uuid: string }[] };
  return body.uuid ?? body.content![0]!.uuid;
}

/** A call of the users routes through the local stack's gateway, as the first organization's ADMIN. */
async function usersApi(token: string, method: string, path: string, body?: object): Promise<Response> {
  return fetch(userArea(stack().orgs[0]!.uuid, `/users${path}`), {
    method,
    headers: { ...bearer(token), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

/**
 * A user of the first organization, created through the API for one event with a name and an e-mail
 * unique to the run (one word, so it goes into a query string as it is) and a password the test knows.
 */
async function createUser(token: string): Promise<UserResponse> {
  const org = stack().orgs[0]!;
  const env = org.environments[0]!;
  const run = unique();
  const response = await usersApi(token, 'POST', '', {
    name: `Probe${run}`,
    email: `event-user-${run}@example.test`,
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
    role: 'VIEWER',
    permissions: [{ environmentUuid: env.uuid, botUuid: env.bots[0]!.uuid }],
  });
  expect(response.status).toBe(200);
  return (await response.json()) as UserResponse;
}

async function readUser(token: string, uuid: string): Promise<UserResponse> {
  const response = await usersApi(token, 'GET', `/${uuid}`);
  expect(response.status).toBe(200);
  return (await response.json()) as UserResponse;
}

/** What the SES emulator received for one address (`GET mailboxUrl` answers `{ emails }`). */
async function mailTo(address: string): Promise<{ subject: string }[]> {
  const { emails } = (await (await fetch(stack().mailboxUrl)).json()) as { emails: { subject: string; destination: { to: string[] } }[] };
  return emails.filter((mail) => mail.destination.to.includes(address));
}

/** The subject of an e-mail of the first organization (it depends on the kind, the language and the realm only). */
function subjectOf(kind: MailKind, language: string | undefined): string {
  const realm = stack().orgs[0]!.name;
  return renderMail(kind, (language ?? 'en') as Language, { name: '', realm, email: '', signInUrl: '' }).subject;
}

/** One event, filled in, and what the test made for it. */
interface Replay {
  event: APIGatewayProxyEventV2;
  values: Record<string, string>;
  /** The event's JSON body, parsed before the replay (the handler's body parser replaces `event.body` in place). */
  request?: Record<string, unknown>;
  /** The user behind `__USER_UUID__`, `__USER_NAME__` and `__USER_EMAIL__`, as the API answered it. */
  user?: UserResponse;
}

/** Fills the placeholders of one event with fresh values (a new user, a new e-mail) for each file. */
async function fill(text: string): Promise<Replay> {
  const org = stack().orgs[0]!;
  const env = org.environments[0]!;
  const bot = env.bots[0]!;
  const values: Record<string, string> = {
    __REALM__: org.name,
    __ORG_UUID__: org.uuid,
    __ENV_UUID__: env.uuid,
    __BOT_UUID__: bot.uuid,
    __PERSONA_UUID__: bot.personas[0]!.uuid,
    __FUNCTION_UUID__: bot.functions[0]!.uuid,
    __COLLECTION_UUID__: bot.collections[0]!.uuid,
    __CLIENT_ID__: stack().clientId,
    __ADMIN_EMAIL__: encodeURIComponent(org.admin.email),
    __ADMIN_PASSWORD__: encodeURIComponent(org.admin.password),
    __NEW_EMAIL__: `event-new-${unique()}@example.test`,
  };
  const token = (await adminToken()).accessToken;
  if (text.includes('__ACCESS_TOKEN__')) values.__ACCESS_TOKEN__ = token;
  if (text.includes('__SUPERVISOR_UUID__')) values.__SUPERVISOR_UUID__ = await firstUuid(token, '/supervisors/default');
  if (text.includes('__AGENT_UUID__')) values.__AGENT_UUID__ = await firstUuid(token, '/agents');
  let user: UserResponse | undefined;
  if (/__USER_(UUID|NAME|EMAIL)__/.test(text)) {
    user = await createUser(token);
    Object.assign(values, { __USER_UUID__: user.uuid, __USER_NAME__: user.name, __USER_EMAIL__: user.email });
  }
  const event = JSON.parse(text.replace(/__[A-Z_]+__/g, (name) => values[name] ?? name)) as APIGatewayProxyEventV2;
  const json = event.headers['content-type'] === 'application/json' && typeof event.body === 'string';
  const request = json ? (JSON.parse(event.body!) as Record<string, unknown>) : undefined;
  return { event, values, ...(request ? { request } : {}), ...(user ? { user } : {}) };
}

/** What an event's route needs done before the replay (the user it names in the state it expects). */
const prepare: Record<string, (replay: Replay, token: string) => Promise<void>> = {
  'users.activate': async ({ user }, token) => {
    expect((await usersApi(token, 'DELETE', `/${user!.uuid}`)).status).toBe(204);
  },
};

const bodyOf = <T>(result: APIGatewayProxyStructuredResultV2): T => JSON.parse(result.body!) as T;

/** What each route's answer must be beyond a 2xx status, checked against the stack where it changed something. */
const expectations: Record<string, (result: APIGatewayProxyStructuredResultV2, replay: Replay, token: string) => Promise<void>> = {
  'users.list': async (result, { user }) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({ content: [user], totalElements: 1, number: 0, size: 5, first: true, last: true });
  },
  'users.quicksearch': async (result, { user }) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual([user!.name]);
  },
  'users.create': async (result, { event, request, values }, token) => {
    expect(result.statusCode).toBe(200);
    const created = bodyOf<UserResponse>(result);
    expect(created).toEqual({
      ...request,
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orgUUID: values.__ORG_UUID__,
      email: values.__NEW_EMAIL__,
      image: null,
      admin: false,
      status: 'ACTIVE',
      createdAt: expect.any(String),
    });
    expect(await readUser(token, created.uuid)).toEqual(created);
    // The welcome e-mail (with the generated password) in the `language` header's language.
    expect(await mailTo(values.__NEW_EMAIL__!)).toMatchObject([{ subject: subjectOf('welcome', event.headers.language) }]);
  },
  'users.activate': async (result, { event, request, user }, token) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ ...user, status: 'ACTIVE' });
    expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'ACTIVE' });
    // The password of the body signs the user in again, and the reactivation e-mail followed the welcome one.
    const password = request!.password as string;
    await expect(passwordToken({ realm: stack().orgs[0]!.name, email: user!.email, password })).resolves.toBeDefined();
    expect(await mailTo(user!.email)).toMatchObject([
      { subject: subjectOf('welcome', undefined) },
      { subject: subjectOf('reactivation', event.headers.language) },
    ]);
  },
  'users.get': async (result, { user }) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual(user);
  },
  'users.update': async (result, { request, values, user }, token) => {
    expect(result.statusCode).toBe(200);
    const expected = { ...user, ...request, email: values.__NEW_EMAIL__, admin: false };
    expect(bodyOf(result)).toEqual(expected);
    expect(await readUser(token, user!.uuid)).toEqual(expected);
    // The new e-mail signs in; the old one no longer does.
    await expect(passwordToken({ realm: stack().orgs[0]!.name, email: values.__NEW_EMAIL__!, password: TEST_PASSWORD })).resolves.toBeDefined();
    const old = await requestToken(stack().orgs[0]!.name, {
      grant_type: 'password',
      client_id: stack().clientId,
      username: user!.email,
      password: TEST_PASSWORD,
    });
    expect(old.status).not.toBe(200);
  },
  'users.delete': async (result, { user }, token) => {
    expect(result.statusCode).toBe(204);
    expect(result.body).toBeUndefined();
    expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'DELETED' });
    const signIn = await requestToken(stack().orgs[0]!.name, {
      grant_type: 'password',
      client_id: stack().clientId,
      username: user!.email,
      password: TEST_PASSWORD,
    });
    expect(signIn.status).not.toBe(200);
  },
};

test('every route of the route table has a sample event', () => {
  expect(files.map((name) => name.replace(/\.json$/, '')).sort()).toEqual(routes.map((route) => route.id).sort());
});

test('every route-specific expectation names a route', () => {
  const ids = routes.map((route) => route.id);
  expect([...Object.keys(prepare), ...Object.keys(expectations)].filter((id) => !ids.includes(id))).toEqual([]);
});

describe.each(files)('events/%s', (file) => {
  test('replays through its handler with a 2xx answer', async () => {
    const replay = await fill(readFileSync(join(eventsDir, file), 'utf8'));
    const { event } = replay;
    // Every placeholder of the file has a value here, or the README's table and this test disagree.
    expect(JSON.stringify(event).match(/__[A-Z_]+__/g)).toBeNull();
    const route = routes.find((candidate) => candidate.routeKey === event.routeKey);
    expect(route).toBeDefined();
    expect(route!.id).toBe(file.replace(/\.json$/, ''));
    const token = (await adminToken()).accessToken;
    await prepare[route!.id]?.(replay, token);
    const { handler } = (await import(`../../functions/${route!.group}/handler`)) as {
      handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
    };
    const result = await handler(event, context);
    expect(result.statusCode).toBeGreaterThanOrEqual(200);
    expect(result.statusCode).toBeLessThan(300);
    expect(result.headers?.['x-request-id']).toBe('sample-request-1');
    await expectations[route!.id]?.(result, replay, token);
  });
});
