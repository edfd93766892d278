import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, DynamoDBStreamEvent, S3Event, SQSEvent } from 'aws-lambda';
import { readAccountSession } from '../../shared/app/account/account-session';
import { signIn as accountSignIn } from '../../shared/app/account/account.service';
import { bulkError, type BulkError } from '../../shared/app/bulk/bulk-create.rules';
import { jobUserUuid } from '../../shared/app/bulk/bulk-create.worker';
import { REFERENCE_POLICY } from '../../shared/edge/docs/reference-page';
import type { ItemError } from '../../shared/app/bulk/bulk-users.service';
import { errorMessage } from '../../shared/kernel/errors';
import { readErrors } from '../../shared/app/bulk/bulk-files';
import { getJob, type BulkJob } from '../../shared/app/bulk/bulk-job';
import type { JobView } from '../../shared/app/bulk/bulk.service';
import { csvCell } from '../../shared/app/bulk/csv-file';
import { subpathsFromEnv } from '../../shared/kernel/config';
import { renderMail, type Language, type MailKind } from '../../shared/adapters/mail/mail.templates';
import { resourceGroups, resolveRoutes, routesOfGroup } from '../../shared/edge/api/routes';
import { passwordProblem } from '../../shared/adapters/identity/password-policy';
import type { UserResponse } from '../../shared/domain/users/user.mapper';
import { findUserByEmail, getUser } from '../../shared/domain/users/user.repository';
import { keys } from '../../shared/adapters/store/keys';
import { putItem, updateItem } from '../../shared/adapters/store/table';
import { TEST_PASSWORD, bearer, createTestUser, passwordToken } from '../support/auth-helpers';
import { api, botUrl, seededBot, type PageDto } from '../support/bot-helpers';
import { send } from '../support/http-client';
import { adminToken, stack, unique, userArea } from '../support/stack';
import { receivedEvents } from '../support/change-events-helpers';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';
import { mailsTo, refresh, signIn, usersApi, usersUrl } from '../support/user-helpers';
import { bulkCreateColumns } from '../../shared/app/bulk/bulk.limits';

const eventsDir = join(__dirname, '..', '..', 'events');
const files = readdirSync(eventsDir).filter((name) => name.endsWith('.json'));
/**
 * Trigger events are named `<function>.<source>-<what>.json` after the function their trigger starts
 * (an S3 notification, the table's stream); the others after a route.
 */
const isS3Event = (name: string) => /^[a-z-]+\.s3-[a-z-]+\.json$/.test(name);
const isStreamEvent = (name: string) => /^[a-z-]+\.dynamodb-[a-z-]+\.json$/.test(name);
const isQueueEvent = (name: string) => /^[a-z-]+\.sqs-[a-z-]+\.json$/.test(name);
const httpFiles = files.filter((name) => !isS3Event(name) && !isStreamEvent(name) && !isQueueEvent(name));
const queueFiles = files.filter(isQueueEvent);
const s3Files = files.filter(isS3Event);
const streamFiles = files.filter(isStreamEvent);
const idOf = (file: string) => file.replace(/\.json$/, '');
const routes = resolveRoutes(subpathsFromEnv());

const context = { awsRequestId: 'events-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** The uuid of the first item a GET of the seeded bot's area answers (default supervisor, first agent). */
async function firstUuid(token: string, path: string): Promise<string> {
  const { body } = await api(token).get<{ uuid?: string } & Partial<PageDto>>(botUrl(seededBot(), path));
  return body.uuid ?? body.content![0]!.uuid;
}

/** The URL of the first organization's users, or of a path under them. */
const seededUsersUrl = (path = '') => usersUrl(stack().orgs[0]!.uuid, path);

/**
 * A user of the first organization, created through the API for one event with a name and an e-mail
 * unique to the run (one word, so it goes into a query string as it is) and a password the test knows.
 */
async function createUser(token: string): Promise<UserResponse> {
  const org = stack().orgs[0]!;
  const env = org.environments[0]!;
  const run = unique();
  const response = await usersApi(token).post(seededUsersUrl(), {
    name: `Probe${run}`,
    email: `event-user-${run}@example.test`,
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
    role: 'VIEWER',
    permissions: [{ environmentUuid: env.uuid, botUuid: env.bots[0]!.uuid }],
  });
  expect(response.status).toBe(200);
  return response.body;
}

let sharedScimToken: Promise<Record<string, string>> | undefined;

/**
 * A SCIM token of the organization, issued by its ADMIN (`__SCIM_TOKEN__`, and its id
 * `__SCIM_TOKEN_ID__`): one for every event of the file (an organization holds at most 10), but a
 * token of its own for the event that revokes it.
 */
function issueScimToken(orgUuid: string, token: string, id: string): Promise<Record<string, string>> {
  const issue = async () => {
    const response = await send<{ id: string; token: string }>(userArea(orgUuid, '/scim-tokens'), {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'events test' }),
    });
    expect(response.status).toBe(201);
    return { __SCIM_TOKEN__: response.body.token, __SCIM_TOKEN_ID__: response.body.id };
  };
  if (id === 'scim.revokeToken') return issue();
  return (sharedScimToken ??= issue());
}

/** The test's password no longer signs this e-mail in (to the first organization). */
async function expectNoSignIn(email: string): Promise<void> {
  const response = await signIn(stack().orgs[0]!.name, email, TEST_PASSWORD);
  expect(response.status).not.toBe(200);
}

async function readUser(token: string, uuid: string): Promise<UserResponse> {
  const response = await usersApi(token).get(seededUsersUrl(`/${uuid}`));
  expect(response.status).toBe(200);
  return response.body;
}

/** The rows of a bulk-create file the events and the test's jobs use: a VIEWER to create, and an EDITOR whose password breaks rule 3. */
function bulkRows(email: string, otherEmail: string): string[][] {
  const env = stack().orgs[0]!.environments[0]!;
  const bot = env.bots[0]!.uuid;
  return [
    [email, 'Ana Lima', 'Acme Support', '', 'VIEWER', env.uuid, env.name, bot],
    [otherEmail, 'Bruno Costa', 'Acme Support', 'short', 'EDITOR', env.uuid, env.name, bot],
  ];
}

/** The error list of those rows: the EDITOR's, on line 3 of the file. */
const bulkErrors = (otherEmail: string): BulkError[] => [bulkError(otherEmail, 3, 'PASSWORD_POLICY', passwordProblem('short'))];

/** A bulk-create job the test made through the local stack's gateway (a file of `bulkRows`). */
interface TestJob {
  jobId: string;
  email: string;
  otherEmail: string;
  rows: string[][];
}

const jobIdOf = (location: string | undefined) => /\/bulk-jobs\/([0-9a-f-]{36})$/.exec(location ?? '')?.[1];

/**
 * Submits a bulk-create job as the first organization's ADMIN, with e-mails unique to the run: a dry run
 * answered when done, or (`async`) a real one answered at once with 202 while the stack's worker runs it.
 */
async function submitJob(token: string, options: { dryRun: boolean; async: boolean }): Promise<TestJob> {
  const run = unique();
  const email = `event-bulk-${run}@example.test`;
  const otherEmail = `event-bulk-other-${run}@example.test`;
  const rows = bulkRows(email, otherEmail);
  const csv = `${[[...bulkCreateColumns], ...rows].map((row) => row.join(',')).join('\r\n')}\r\n`;
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'users.csv');
  const response = await send(userArea(stack().orgs[0]!.uuid, `/users/bulk-create${options.dryRun ? '?dryRun=true' : ''}`), {
    method: 'POST',
    headers: { ...bearer(token), ...(options.async ? { prefer: 'respond-async' } : {}) },
    body: form,
  });
  expect(response.status).toBe(options.async ? 202 : 200);
  const jobId = jobIdOf(response.headers.get('location') ?? undefined);
  expect(jobId).toBeDefined();
  return { jobId: jobId!, email, otherEmail, rows };
}

/** The job each event naming `__JOB_ID__` needs: a finished dry run unless listed here. */
const jobKinds: Record<string, { dryRun: boolean; async: boolean }> = {
  // Answered at once, so the replay races the stack's own run of the job (as a second delivery would in AWS).
  'bulk-worker.s3-put': { dryRun: false, async: true },
};

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
  /** A base64 body (multipart), filled in and decoded, as the handler will read it. */
  decodedBody?: string;
  /** The job behind `__JOB_ID__`. */
  job?: TestJob;
}

/**
 * Fills the placeholders of one event with fresh values (a new user, new e-mails, a new job) for each
 * file. A base64 body (multipart) has its placeholders in the decoded text: it is decoded, filled and
 * encoded again.
 */
async function fill(text: string, id: string): Promise<Replay> {
  const org = stack().orgs[0]!;
  const env = org.environments[0]!;
  const bot = env.bots[0]!;
  const raw = JSON.parse(text) as { body?: string; isBase64Encoded?: boolean };
  const encoded = raw.isBase64Encoded === true && typeof raw.body === 'string';
  const decoded = encoded ? Buffer.from(raw.body!, 'base64').toString('utf8') : '';
  const all = `${text}\n${decoded}`;
  const values: Record<string, string> = {
    __REALM__: org.name,
    __ORG_UUID__: org.uuid,
    __ENV_UUID__: env.uuid,
    __ENV_NAME__: env.name,
    __BOT_UUID__: bot.uuid,
    __OTHER_BOT_UUID__: env.bots[1]!.uuid,
    __PERSONA_UUID__: bot.personas[0]!.uuid,
    __FUNCTION_UUID__: bot.functions[0]!.uuid,
    __COLLECTION_UUID__: bot.collections[0]!.uuid,
    __CLIENT_ID__: stack().clientId,
    __ADMIN_EMAIL__: encodeURIComponent(org.admin.email),
    __ADMIN_PASSWORD__: encodeURIComponent(org.admin.password),
    __NEW_EMAIL__: `event-new-${unique()}@example.test`,
    __OTHER_NEW_EMAIL__: `event-new-other-${unique()}@example.test`,
    __BUCKET__: process.env.BULK_BUCKET_NAME!,
  };
  const token = (await adminToken()).accessToken;
  if (all.includes('__ACCESS_TOKEN__')) values.__ACCESS_TOKEN__ = token;
  if (all.includes('__SUPERVISOR_UUID__')) values.__SUPERVISOR_UUID__ = await firstUuid(token, '/supervisors/default');
  if (all.includes('__AGENT_UUID__')) values.__AGENT_UUID__ = await firstUuid(token, '/agents');
  if (all.includes('__SCIM_TOKEN')) Object.assign(values, await issueScimToken(org.uuid, token, id));
  let user: UserResponse | undefined;
  if (/__USER_(UUID|NAME|EMAIL)__/.test(all)) {
    user = await createUser(token);
    Object.assign(values, { __USER_UUID__: user.uuid, __USER_NAME__: user.name, __USER_EMAIL__: user.email });
  }
  if (/__WEBHOOK_(URL|ID)__|__DELIVERY_ID__/.test(all)) values.__WEBHOOK_URL__ = (await webhookReceiver()).url;
  if (/__WEBHOOK_ID__|__DELIVERY_ID__/.test(all)) values.__WEBHOOK_ID__ = await createWebhookOf(token, values.__WEBHOOK_URL__!);
  if (all.includes('__DELIVERY_ID__')) values.__DELIVERY_ID__ = await pingedDelivery(token, values.__WEBHOOK_ID__!);
  let job: TestJob | undefined;
  if (all.includes('__JOB_ID__')) {
    job = await submitJob(token, jobKinds[id] ?? { dryRun: true, async: false });
    values.__JOB_ID__ = job.jobId;
  }
  const substitute = (source: string) => source.replace(/__[A-Z_]+__/g, (name) => values[name] ?? name);
  const event = JSON.parse(substitute(text)) as APIGatewayProxyEventV2;
  const decodedBody = encoded ? substitute(decoded) : undefined;
  if (decodedBody !== undefined) event.body = Buffer.from(decodedBody, 'utf8').toString('base64');
  const json = event.headers?.['content-type'] === 'application/json' && typeof event.body === 'string';
  const request = json ? (JSON.parse(event.body!) as Record<string, unknown>) : undefined;
  return {
    event,
    values,
    ...(request ? { request } : {}),
    ...(user ? { user } : {}),
    ...(decodedBody !== undefined ? { decodedBody } : {}),
    ...(job ? { job } : {}),
  };
}

let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());
/** One receiver on 127.0.0.1 for every webhook the events make (the local stack allows http there). */
const webhookReceiver = async () => (receiver ??= await startReceiver());

/** A webhook subscription of the first organization, made through the API. */
async function createWebhookOf(token: string, url: string): Promise<string> {
  const response = await api(token).post<{ id: string }>(userArea(stack().orgs[0]!.uuid, '/webhooks'), { url, eventTypes: ['agent.updated'], enabled: true, excludeActors: [] });
  expect(response.status).toBe(201);
  return response.body.id;
}

/** The delivery of a ping to the subscription, once its attempt is listed. */
async function pingedDelivery(token: string, webhookId: string): Promise<string> {
  const base = userArea(stack().orgs[0]!.uuid, `/webhooks/${webhookId}`);
  expect((await api(token).post(`${base}/test`, undefined)).status).toBe(202);
  let attempts: { deliveryId: string }[] = [];
  await eventually(async () => (attempts = (await api(token).get<{ deliveryId: string }[]>(`${base}/deliveries`)).body).length > 0, 'the ping delivered');
  return attempts[0]!.deliveryId;
}

/** What an event's route needs done before the replay (the user it names in the state it expects). */
const prepare: Record<string, (replay: Replay, token: string) => Promise<void>> = {
  // The files cannot hold a refresh token (`sam:event` has none to give): a fresh sign-in's goes in.
  'auth.revoke': async (replay) => withFreshRefreshToken(replay, (refreshToken) => ({ token: refreshToken, token_type_hint: 'refresh_token' })),
  'auth.logout': async (replay) => withFreshRefreshToken(replay, (refreshToken) => ({ refresh_token: refreshToken })),
  'auth.accountPassword': async (replay) =>
    withAccountSession(replay, { password: TEST_PASSWORD, 'password-new': 'Events-Passw0rd', 'password-confirm': 'Events-Passw0rd' }),
  'auth.accountSignOut': async (replay) => withAccountSession(replay, {}),
  'users.activate': async ({ user }, token) => {
    expect((await usersApi(token).delete(seededUsersUrl(`/${user!.uuid}`))).status).toBe(204);
  },
  // A second grant (the environment's other bot), so the revocation of the first leaves one behind.
  'bulk.revoke': async (replay, token) => {
    const { user, values } = replay;
    const permissions = [...user!.permissions, { environmentUuid: values.__ENV_UUID__!, botUuid: values.__OTHER_BOT_UUID__! }];
    const response = await usersApi(token).put(seededUsersUrl(`/${user!.uuid}`), { ...user, permissions });
    expect(response.status).toBe(200);
    replay.user = response.body;
    expect(replay.user.permissions).toEqual(permissions);
  },
  // A finished job with a welcome SES did not accept (a dry run's rerun sends none and clears the list).
  'bulk.welcomes': async ({ job, values }) => {
    const failure = { line: 2, userUuid: randomUUID(), reason: 'MessageRejected' };
    await updateItem({
      Key: keys.bulkJob(values.__ORG_UUID__!, job!.jobId),
      UpdateExpression: 'SET welcomeFailures = :failures',
      ExpressionAttributeValues: { ':failures': [failure] },
    });
    expect(await getJob(values.__ORG_UUID__!, job!.jobId)).toMatchObject({ status: 'done', welcomeFailures: [failure] });
  },
  // A job whose worker died: still `running`, its lease lapsed a minute ago (it reads as failed, retryable).
  'bulk.retry': async ({ job, values }) => {
    const lapsed = { runId: 'a-run-that-died', until: Date.now() - 60_000 };
    await updateItem({
      Key: keys.bulkJob(values.__ORG_UUID__!, job!.jobId),
      UpdateExpression: 'SET #status = :running, lease = :lease',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':running': 'running', ':lease': lapsed },
    });
    expect(await getJob(values.__ORG_UUID__!, job!.jobId)).toMatchObject({ status: 'running', lease: lapsed });
  },
};

/**
 * Signs a new user in to the account page and gives the event that page session's cookie and form
 * token (a file cannot hold them), with the rest of the form.
 */
async function withAccountSession(replay: Replay, form: Record<string, string>): Promise<void> {
  const user = await createTestUser();
  const answer = await accountSignIn({
    realm: user.realm,
    sessionToken: undefined,
    locale: 'es',
    acceptLanguage: undefined,
    form: new URLSearchParams({ username: user.email, password: user.password }),
  });
  const token = answer.kind === 'back' && answer.session ? answer.session.token : undefined;
  const account = await readAccountSession(token, user.orgUuid);
  replay.values.__ACCOUNT_EMAIL__ = user.email;
  replay.event.cookies = [`ACCOUNT_SESSION=${token}`];
  replay.event.body = new URLSearchParams({ csrf: account!.csrf, ...form }).toString();
}

/** Signs the organization's ADMIN in again and puts the new refresh token into the event's form. */
async function withFreshRefreshToken(replay: Replay, form: (refreshToken: string) => Record<string, string>): Promise<void> {
  const { admin } = stack().orgs[0]!;
  const { refresh_token } = await passwordToken({ realm: replay.values.__REALM__!, email: admin.email, password: admin.password });
  replay.values.__REFRESH_TOKEN__ = refresh_token;
  replay.event.body = new URLSearchParams({ client_id: stack().clientId, ...form(refresh_token) }).toString();
}

/** The session of the refresh token `withFreshRefreshToken` gave the event has ended. */
async function expectSessionEnded(values: Record<string, string>): Promise<void> {
  expect((await refresh(values.__REALM__!, values.__REFRESH_TOKEN__!)).status).toBe(400);
}

const bodyOf = <T>(result: APIGatewayProxyStructuredResultV2): T => JSON.parse(result.body!) as T;

/** A 202 with the job queued again; its upload's copy onto itself runs it again, to the same outcome. */
async function expectRequeuedThenDone(result: APIGatewayProxyStructuredResultV2, { job, values }: Replay, more: Partial<BulkJob>): Promise<void> {
  expect(result.statusCode).toBe(202);
  expect(result.headers?.location).toMatch(new RegExp(`/bulk-jobs/${job!.jobId}$`));
  expect(bodyOf<JobView>(result)).toMatchObject({ jobId: job!.jobId, status: 'queued' });
  let seen = await getJob(values.__ORG_UUID__!, job!.jobId);
  for (let waited = 0; seen?.status !== 'done' && waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await getJob(values.__ORG_UUID__!, job!.jobId);
  }
  expect(seen).toMatchObject({ status: 'done', dryRun: true, counts: { rows: 2, created: 1, failed: 1 }, ...more });
  expect(seen).not.toHaveProperty('lease');
}

/** What each route's answer must be beyond a 2xx status, checked against the stack where it changed something. */
type Expectation = (result: APIGatewayProxyStructuredResultV2, replay: Replay, token: string) => Promise<void>;

/** The revision events of agents or supervisors: the first listed item's revision 1 (its creation by the seed). */
function revisionExpectations(kind: 'agents' | 'supervisors', placeholder: string): Record<string, Expectation> {
  return {
    [`${kind}.revisions`]: async (result) => {
      expect(result.statusCode).toBe(200);
      const page = bodyOf(result) as PageDto & { content: { revision: number; action: string }[] };
      expect(page.totalElements).toBeGreaterThanOrEqual(1);
      // Newest first: the latest revision is the total's number, since revisions have no gaps.
      expect(page.content[0]!.revision).toBe(page.totalElements);
      expect(page.number).toBe(1);
    },
    [`${kind}.revision`]: async (result, { values }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ uuid: values[placeholder] });
    },
    [`${kind}.revisionDiff`]: async (result, { values }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ from: null, to: 1, patch: [{ op: 'add', path: '', value: { uuid: values[placeholder] } }] });
    },
    [`${kind}.restore`]: async (result, { values }, token) => {
      expect(result.statusCode).toBe(200);
      const etag = String(result.headers?.etag);
      expect(etag).toMatch(/^"\d+"$/);
      const revisions = await api(token).get<PageDto & { content: { revision: number; action: string }[] }>(
        botUrl(seededBot(), `/${kind}/${values[placeholder]}/revisions`),
      );
      expect(revisions.body.content[0]).toMatchObject({ revision: Number(etag.replace(/"/g, '')), action: 'RESTORED' });
    },
  };
}

const expectations: Record<string, Expectation> = {
  ...revisionExpectations('agents', '__AGENT_UUID__'),
  ...revisionExpectations('supervisors', '__SUPERVISOR_UUID__'),
  'auth.discovery': async (result, { values }) => {
    expect(result.statusCode).toBe(200);
    const issuer = `${stack().authUrl}/auth/realms/${values.__REALM__}`;
    expect(bodyOf(result)).toMatchObject({ issuer, token_endpoint: `${issuer}/protocol/openid-connect/token` });
  },
  'auth.userinfo': async (result) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({ sub: expect.any(String), email: stack().orgs[0]!.admin.email });
  },
  'auth.userinfoPost': async (result) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({ sub: expect.any(String), email: stack().orgs[0]!.admin.email });
  },
  'auth.revoke': async (result, { values }) => {
    expect(result.statusCode).toBe(200);
    await expectSessionEnded(values);
  },
  'auth.logout': async (result, { values }) => {
    expect(result.statusCode).toBe(204);
    await expectSessionEnded(values);
  },
  'auth.account': async (result) => {
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain('<html lang="es">');
  },
  'auth.accountSignIn': async (result) => {
    expect(result.headers?.location).toBe('../account?kc_locale=es');
    expect(result.cookies).toEqual([expect.stringMatching(/^ACCOUNT_SESSION=[^;]+; Path=\/auth\/realms\/[^/]+\/account; HttpOnly; SameSite=Strict/)]);
  },
  'auth.accountPassword': async (result, { values }) => {
    expect(result.headers?.location).toBe('../account?kc_locale=es&status=password-saved');
    await expect(passwordToken({ realm: values.__REALM__!, email: values.__ACCOUNT_EMAIL__!, password: 'Events-Passw0rd' })).resolves.toBeDefined();
  },
  // The API reference: its document names the address the event reached (Host, x-forwarded-proto).
  'docs.root': async (result) => {
    expect(result.headers?.location).toBe('/docs');
  },
  'docs.openapi': async (result) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({ openapi: '3.1.0', servers: [{ url: 'https://api.example.com' }] });
  },
  'docs.ui': async (result) => {
    expect(result.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(result.headers?.['content-security-policy']).toBe(REFERENCE_POLICY);
  },
  'docs.asset': async (result) => {
    expect(result.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' });
    expect(result.body).toContain('SwaggerUIBundle');
  },
  'auth.accountSignOut': async (result) => {
    expect(result.headers?.location).toBe('../account?kc_locale=es&status=signed-out');
    expect(result.cookies).toEqual([expect.stringMatching(/^ACCOUNT_SESSION=; .*Max-Age=0$/)]);
  },
  'users.bruteForce': async (result) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ disabled: false, numFailures: 0, lastFailure: 0, lockedUntil: null });
  },
  'users.list': async (result, { user }) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({ content: [user], totalElements: 1, number: 0, size: 5, first: true, last: true });
  },
  // The user the test created has one event: its creation by the ADMIN, with the whole user as the patch.
  'users.auditEvents': async (result, { user }) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toMatchObject({
      totalElements: 1,
      number: 0,
      size: 20,
      content: [
        {
          action: 'USER_CREATED',
          resource: { type: 'USER', uuid: user!.uuid },
          actor: { email: stack().orgs[0]!.admin.email },
          changes: [
            { op: 'add', path: '', value: user },
            { op: 'add', path: '/password', value: '[REDACTED]' },
          ],
        },
      ],
    });
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
    expect(await mailsTo(values.__NEW_EMAIL__!)).toMatchObject([{ subject: subjectOf('welcome', event.headers.language) }]);
  },
  'users.activate': async (result, { event, request, user }, token) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ ...user, status: 'ACTIVE' });
    expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'ACTIVE' });
    // The password of the body signs the user in again, and the reactivation e-mail followed the welcome one.
    const password = request!.password as string;
    await expect(passwordToken({ realm: stack().orgs[0]!.name, email: user!.email, password })).resolves.toBeDefined();
    expect(await mailsTo(user!.email)).toMatchObject([
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
    await expectNoSignIn(user!.email);
  },
  // A job whose file the client uploads itself: the presigned POST takes the file, whose upload runs the job.
  'bulk.upload': async (result, { event, values }) => {
    expect(result.statusCode).toBe(201);
    const body = bodyOf<{ jobId: string; upload: { method: string; url: string; fields: Record<string, string>; expiresAt: string }; job: string }>(result);
    const location = `/${stack().userSubpath}/org/${values.__ORG_UUID__}/users/bulk-jobs/${body.jobId}`;
    expect(result.headers?.location).toBe(location);
    expect(body).toMatchObject({ upload: { method: 'POST' }, job: location });
    const email = `event-upload-${unique()}@example.test`;
    const form = new FormData();
    for (const [name, value] of Object.entries(body.upload.fields)) form.append(name, value);
    form.append('file', new Blob([`Email,Name,Role\r\n${email},Upload Probe,ADMIN\r\n`], { type: 'text/csv' }), 'users.csv');
    const posted = await fetch(body.upload.url, { method: 'POST', body: form });
    expect(posted.status).toBe(204);
    let job = await getJob(values.__ORG_UUID__!, body.jobId);
    for (let waited = 0; job?.status !== 'done' && waited < 10_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = await getJob(values.__ORG_UUID__!, body.jobId);
    }
    // The event asks for a dry run in Japanese: the file is checked, nobody is created or mailed.
    expect(job).toMatchObject({ status: 'done', dryRun: true, language: event.headers.language, counts: { rows: 1, created: 1, failed: 0 } });
    expect(await findUserByEmail(values.__ORG_UUID__!, email)).toBeUndefined();
    expect(await mailsTo(email)).toEqual([]);
  },
  'bulk.create': async (result, { event, values }, token) => {
    expect(result.statusCode).toBe(200);
    // The file's error list: the EDITOR broke rule 3; the VIEWER was created.
    expect(bodyOf(result)).toEqual(bulkErrors(values.__OTHER_NEW_EMAIL__!));
    const orgUuid = values.__ORG_UUID__!;
    const jobId = jobIdOf(result.headers?.location as string | undefined);
    expect(result.headers?.location).toBe(`/${stack().userSubpath}/org/${orgUuid}/users/bulk-jobs/${jobId}`);
    expect(await getJob(orgUuid, jobId!)).toMatchObject({ status: 'done', dryRun: false, language: event.headers.language, counts: { rows: 2, created: 1, failed: 1 } });
    const [env, bot] = [values.__ENV_UUID__!, values.__BOT_UUID__!];
    expect(await readUser(token, jobUserUuid(jobId!, values.__NEW_EMAIL__!))).toEqual({
      uuid: jobUserUuid(jobId!, values.__NEW_EMAIL__!),
      orgUUID: orgUuid,
      name: 'Ana Lima',
      email: values.__NEW_EMAIL__,
      company: 'Acme Support',
      role: 'VIEWER',
      permissions: [{ environmentUuid: env, botUuid: bot }],
      image: null,
      admin: false,
      status: 'ACTIVE',
      createdAt: expect.any(String),
    });
    // The welcome e-mail (with the generated password) in the `language` header's language; none for the EDITOR.
    expect(await mailsTo(values.__NEW_EMAIL__!)).toMatchObject([{ subject: subjectOf('welcome', event.headers.language) }]);
    expect(await mailsTo(values.__OTHER_NEW_EMAIL__!)).toEqual([]);
    expect(await findUserByEmail(orgUuid, values.__OTHER_NEW_EMAIL__!)).toBeUndefined();
  },
  'bulk.welcomes': async (result, replay) => expectRequeuedThenDone(result, replay, { welcomeFailures: [] }),
  // Requeued, and the upload's copy onto itself runs the job again, to the same outcome.
  'bulk.retry': async (result, replay) => expectRequeuedThenDone(result, replay, {}),
  'bulk.job': async (result, { job }, token) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf<JobView>(result)).toEqual({
      jobId: job!.jobId,
      status: 'done',
      dryRun: true,
      counts: { rows: 2, created: 1, failed: 1 },
      welcomes: { sent: 0, pending: 0, failed: 0 },
      progress: { processed: 2, total: 2, percent: 100 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      errors: bulkErrors(job!.otherEmail),
    });
    // A dry run counts the VIEWER as created but creates nobody.
    expect((await usersApi(token).get(seededUsersUrl(`/${jobUserUuid(job!.jobId, job!.email)}`))).status).toBe(404);
    expect(await mailsTo(job!.email)).toEqual([]);
  },
  'bulk.failedRows': async (result, { job }) => {
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('text/csv; charset=utf-8');
    expect(result.headers?.['content-disposition']).toBe(`attachment; filename="failed-rows-${job!.jobId}.csv"`);
    // The file's header plus `Error`, then the EDITOR's row with its error's message.
    const [error] = bulkErrors(job!.otherEmail);
    const lines = [[...bulkCreateColumns, 'Error'], [...job!.rows[1]!, error!.message]].map((cells) => cells.map(csvCell).join(','));
    expect(result.body).toBe(`${lines.join('\r\n')}\r\n`);
  },
  'bulk.delete': async (result, { values, user }, token) => {
    expect(result.statusCode).toBe(200);
    // The user is deleted; the unknown e-mail (second in the list) is the only error.
    const unknown: ItemError = { email: values.__NEW_EMAIL__!, message: errorMessage('USER_NOT_FOUND', 'item'), errorCode: 'USER_NOT_FOUND', index: 1 };
    expect(bodyOf(result)).toEqual([unknown]);
    expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'DELETED' });
    await expectNoSignIn(user!.email);
    expect(await findUserByEmail(values.__ORG_UUID__!, values.__NEW_EMAIL__!)).toBeUndefined();
  },
  'bulk.grant': async (result, { values, user }, token) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual([]);
    // The VIEWER keeps its bot and gains the environment's other one.
    const granted = { environmentUuid: values.__ENV_UUID__!, botUuid: values.__OTHER_BOT_UUID__! };
    expect(user!.permissions).not.toContainEqual(granted);
    expect(await readUser(token, user!.uuid)).toEqual({ ...user, permissions: [...user!.permissions, granted] });
  },
  'bulk.revoke': async (result, { values, user }, token) => {
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual([]);
    // The grant of that bot is gone; the other bot's (added by `prepare`) stays.
    const revoked = { environmentUuid: values.__ENV_UUID__!, botUuid: values.__BOT_UUID__! };
    expect(user!.permissions).toContainEqual(revoked);
    const after = await readUser(token, user!.uuid);
    expect(after.permissions).not.toContainEqual(revoked);
    expect(after).toEqual({ ...user, permissions: user!.permissions.filter((p) => p.botUuid !== revoked.botUuid) });
    expect(after.permissions).toEqual([{ environmentUuid: values.__ENV_UUID__!, botUuid: values.__OTHER_BOT_UUID__! }]);
  },
  'users.clearBruteForce': async (result) => {
    expect(result.statusCode).toBe(204);
  },
  'users.delete': async (result, { user }, token) => {
    expect(result.statusCode).toBe(204);
    expect(result.body).toBeUndefined();
    expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'DELETED' });
    await expectNoSignIn(user!.email);
  },
};

/** What each S3 event's replay must leave behind, checked against the stack. */
const s3Expectations: Record<string, (replay: Replay, token: string) => Promise<void>> = {
  'bulk-worker.s3-put': async ({ event, values, job }, token) => {
    expect((event as unknown as S3Event).Records.map((record) => record.s3.bucket.name)).toEqual([process.env.BULK_BUCKET_NAME]);
    // Whichever run finished it (the replay or the stack's own), the job is done once, with the file's outcome.
    const orgUuid = values.__ORG_UUID__!;
    expect(await getJob(orgUuid, job!.jobId)).toMatchObject({
      status: 'done',
      dryRun: false,
      counts: { rows: 2, created: 1, failed: 1 },
      progress: { processed: 2, total: 2 },
    });
    expect(await readErrors(orgUuid, job!.jobId)).toEqual(bulkErrors(job!.otherEmail));
    // One user for the VIEWER's e-mail: the one with the job's uuid for it (no run made another).
    const uuid = jobUserUuid(job!.jobId, job!.email);
    expect(await readUser(token, uuid)).toMatchObject({ uuid, email: job!.email, name: 'Ana Lima', role: 'VIEWER', status: 'ACTIVE' });
    expect((await findUserByEmail(orgUuid, job!.email))?.uuid).toBe(uuid);
    expect(await findUserByEmail(orgUuid, job!.otherEmail)).toBeUndefined();
    // Welcome e-mails to the VIEWER only (two runs at once may each send one).
    const mails = await mailsTo(job!.email);
    expect(mails.length).toBeGreaterThanOrEqual(1);
    expect(mails.map((mail) => mail.subject)).toEqual(mails.map(() => subjectOf('welcome', 'en')));
    expect(await mailsTo(job!.otherEmail)).toEqual([]);
  },
};

const accountForms = new Set(['auth.accountSignIn', 'auth.accountPassword', 'auth.accountSignOut']);

test('every route of the route table has a sample event', () => {
  expect(httpFiles.map(idOf).sort()).toEqual(routes.map((route) => route.id).sort());
});

test('every function without a route has a sample trigger event (S3, the table stream, a queue), named after it', () => {
  const triggered = resourceGroups.filter((group) => routesOfGroup(routes, group).length === 0);
  expect([...new Set([...s3Files, ...streamFiles, ...queueFiles].map((file) => file.split('.')[0]))].sort()).toEqual([...triggered].sort());
});

test('every route-specific expectation names a route or an S3 event', () => {
  const ids = [...routes.map((route) => route.id), ...s3Files.map(idOf), ...streamFiles.map(idOf), ...queueFiles.map(idOf)];
  const named = [...Object.keys(prepare), ...Object.keys(expectations), ...Object.keys(s3Expectations), ...Object.keys(jobKinds)];
  expect(named.filter((id) => !ids.includes(id))).toEqual([]);
});

/** No placeholder is left in an event (nor in its decoded body), or the table of events/README.md and this test disagree. */
function expectFilled({ event, decodedBody }: Replay): void {
  expect(`${JSON.stringify(event)}\n${decodedBody ?? ''}`.match(/__[A-Z_]+__/g)).toBeNull();
}

describe.each(httpFiles)('events/%s', (file) => {
  test('replays through its handler with a 2xx answer', async () => {
    const replay = await fill(readFileSync(join(eventsDir, file), 'utf8'), idOf(file));
    const { event } = replay;
    expectFilled(replay);
    const route = routes.find((candidate) => candidate.routeKey === event.routeKey);
    expect(route).toBeDefined();
    expect(route!.id).toBe(idOf(file));
    const token = (await adminToken()).accessToken;
    await prepare[route!.id]?.(replay, token);
    const { handler } = (await import(`../../functions/${route!.group}/handler`)) as {
      handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
    };
    const result = await handler(event, context);
    // The account page's forms answer 303 back to the page, as a browser expects, and the API's root
    // 302 to the reference; every other route a 2xx.
    if (accountForms.has(route!.id)) expect(result.statusCode).toBe(303);
    else if (route!.id === 'docs.root') expect(result.statusCode).toBe(302);
    else {
      expect(result.statusCode).toBeGreaterThanOrEqual(200);
      expect(result.statusCode).toBeLessThan(300);
    }
    expect(result.headers?.['x-request-id']).toBe('sample-request-1');
    await expectations[route!.id]?.(result, replay, token);
  });
});

describe.each(s3Files)('events/%s', (file) => {
  test('replays through its function, twice (S3 and Lambda deliver at least once)', async () => {
    const replay = await fill(readFileSync(join(eventsDir, file), 'utf8'), idOf(file));
    expectFilled(replay);
    const event = replay.event as unknown as S3Event;
    const group = file.split('.')[0]!;
    const { handler } = (await import(`../../functions/${group}/handler`)) as { handler: (e: S3Event) => Promise<void> };
    await expect(handler(event)).resolves.toBeUndefined();
    await expect(handler(event)).resolves.toBeUndefined();
    await s3Expectations[idOf(file)]?.(replay, (await adminToken()).accessToken);
  });
});

describe.each(streamFiles)('events/%s', (file) => {
  test('replays through its function, twice (the stream delivers at least once): one change event on the bus, by the audit event\'s id', async () => {
    const replay = await fill(readFileSync(join(eventsDir, file), 'utf8'), idOf(file));
    expectFilled(replay);
    const event = replay.event as unknown as DynamoDBStreamEvent;
    const group = file.split('.')[0]!;
    const { handler } = (await import(`../../functions/${group}/handler`)) as { handler: (e: DynamoDBStreamEvent) => Promise<unknown> };
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    const id = event.Records[0]!.dynamodb!.NewImage!.id!.S;
    const received = await receivedEvents();
    const copies = received.filter((candidate) => candidate.detail.id === id && candidate.detail.source === `/org/${replay.values.__ORG_UUID__}`);
    expect(copies.length).toBeGreaterThanOrEqual(2);
    expect(new Set(copies.map((copy) => JSON.stringify(copy.detail))).size).toBe(1);
  });
});

describe.each(queueFiles)('events/%s', (file) => {
  test('replays through its function, twice (SQS delivers at least once): the e-mail it names is sent once', async () => {
    const replay = await fill(readFileSync(join(eventsDir, file), 'utf8'), idOf(file));
    expectFilled(replay);
    const event = replay.event as unknown as SQSEvent;
    const mail = JSON.parse(event.Records[0]!.body) as { id: string; kind: string; orgUuid: string; userUuid: string };
    // The attempt the message is, as the request that queued it records it.
    await putItem({ ...keys.userMail(mail.orgUuid, mail.userUuid, mail.kind), type: 'MAIL', attempt: mail.id, state: 'QUEUED', queuedAt: new Date().toISOString() });
    const user = await getUser(mail.orgUuid, mail.userUuid);
    const before = (await mailsTo(user!.email)).length;
    const group = file.split('.')[0]!;
    const { handler } = (await import(`../../functions/${group}/handler`)) as { handler: (e: SQSEvent) => Promise<unknown> };
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    await expect(handler(event)).resolves.toEqual({ batchItemFailures: [] });
    const mails = await mailsTo(user!.email);
    expect(mails.slice(before).map((received) => received.subject)).toEqual([subjectOf('reactivation', 'en')]);
  });
});
