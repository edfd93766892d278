import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { bulkError, type BulkError } from '../../shared/app/bulk/bulk-create.rules';
import { bulkCreateColumns } from '../../shared/app/bulk/bulk.limits';
import { getJob, type BulkJob } from '../../shared/domain/bulk/bulk-job.repository';
import type { JobView } from '../../shared/app/bulk/bulk.service';
import { renderMail, type Language, type MailKind } from '../../shared/adapters/mail/mail.templates';
import { passwordProblem } from '../../shared/adapters/identity/password-policy';
import { resolveRoutes, type ResourceGroup } from '../../shared/edge/api/routes';
import { subpathsFromEnv } from '../../shared/kernel/config';
import { unfilledPlaceholders } from '../../scripts/sam-event';
import { expectStatus, stackApiClient } from './api-client';
import { TEST_PASSWORD, bearer } from './auth-helpers';
import { agentsOf, seededBot, supervisorsOf } from './bot-helpers';
import type { components } from '../../clients/typescript/src/generated/api-types';
import { seededAdminToken, send } from './http-client';
import { requestToken, stack, unique, userArea } from './stack';
import { eventually, startReceiver, type Receiver } from './webhook-receiver';
import { signIn } from './user-helpers';

/**
 * Replaying the sample events of `events/` through each function's handler, against the local stack:
 * which files there are, the fresh values each file's placeholders get, and the test of a route's
 * event that each area's test file declares with what it prepares and expects.
 */

type User = components['schemas']['User'];

export const eventsDir = join(__dirname, '..', '..', 'events');
const files = readdirSync(eventsDir).filter((name) => name.endsWith('.json'));
/**
 * Trigger events are named `<function>.<source>-<what>.json` after the function their trigger starts
 * (an S3 notification, the table's stream); the others after a route.
 */
const isS3Event = (name: string) => /^[a-z-]+\.s3-[a-z-]+\.json$/.test(name);
const isStreamEvent = (name: string) => /^[a-z-]+\.dynamodb-[a-z-]+\.json$/.test(name);
const isQueueEvent = (name: string) => /^[a-z-]+\.sqs-[a-z-]+\.json$/.test(name);
export const httpFiles = files.filter((name) => !isS3Event(name) && !isStreamEvent(name) && !isQueueEvent(name));
export const queueFiles = files.filter(isQueueEvent);
export const s3Files = files.filter(isS3Event);
export const streamFiles = files.filter(isStreamEvent);
export const idOf = (file: string) => file.replace(/\.json$/, '');
export const routes = resolveRoutes(subpathsFromEnv());

const context = { awsRequestId: 'events-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

const USERS = '/user-management/org/{orgUUID}/users';
const USER = '/user-management/org/{orgUUID}/users/{userId}';
/** The path parameters of the first organization's users, or of one of them. */
const inFirstOrg = () => ({ path: { orgUUID: stack().orgs[0]!.uuid } });
const ofUser = (userId: string) => ({ path: { orgUUID: stack().orgs[0]!.uuid, userId } });

/**
 * A user of the first organization, created through the API for one event with a name and an e-mail
 * unique to the run (one word, so it goes into a query string as it is) and a password the test knows.
 */
async function createUser(token: string): Promise<User> {
  const env = stack().orgs[0]!.environments[0]!;
  const run = unique();
  const body = {
    name: `Probe${run}`,
    email: `event-user-${run}@example.test`,
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
    role: 'VIEWER' as const,
    permissions: [{ environmentUuid: env.uuid, botUuid: env.bots[0]!.uuid }],
  };
  return (await expectStatus(200, stackApiClient(token).POST(USERS, { params: inFirstOrg(), body }))).body;
}

/** A user of the first organization as the API reads it; fails the test unless it is there. */
export async function readUser(token: string, uuid: string): Promise<User> {
  return (await expectStatus(200, stackApiClient(token).GET(USER, { params: ofUser(uuid) }))).body;
}

/** Deletes a user of the first organization through the API; fails the test unless it answers 204. */
export async function deleteUser(token: string, uuid: string): Promise<void> {
  await expectStatus(204, stackApiClient(token).DELETE(USER, { params: ofUser(uuid) }));
}

/** Replaces a user of the first organization through the API and answers what it reads back. */
export async function replaceUser(token: string, user: User): Promise<User> {
  return (await expectStatus(200, stackApiClient(token).PUT(USER, { params: ofUser(user.uuid), body: user }))).body;
}

/** The status of a read of a user of the first organization (404 for one a dry run did not create). */
export async function userStatus(token: string, uuid: string): Promise<number> {
  return (await stackApiClient(token).GET(USER, { params: ofUser(uuid) })).response.status;
}

let sharedScimToken: Promise<Record<string, string>> | undefined;

/**
 * A SCIM token of the organization, issued by its ADMIN (`__SCIM_TOKEN__`, and its id
 * `__SCIM_TOKEN_ID__`): one for every event of the file (an organization holds at most 10), but a
 * token of its own for the event that revokes it.
 */
function issueScimToken(orgUUID: string, token: string, id: string): Promise<Record<string, string>> {
  const issue = async () => {
    const { body } = await expectStatus(
      201,
      stackApiClient(token).POST('/user-management/org/{orgUUID}/scim-tokens', { params: { path: { orgUUID } }, body: { description: 'events test' } }),
    );
    return { __SCIM_TOKEN__: body.token, __SCIM_TOKEN_ID__: body.id };
  };
  if (id === 'scim.revokeToken') return issue();
  return (sharedScimToken ??= issue());
}

/** The test's password no longer signs this e-mail in (to the first organization). */
export async function expectNoSignIn(email: string): Promise<void> {
  const response = await signIn(stack().orgs[0]!.name, email, TEST_PASSWORD);
  expect(response.status).not.toBe(200);
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
export const bulkErrors = (otherEmail: string): BulkError[] => [bulkError(otherEmail, 3, 'PASSWORD_POLICY', passwordProblem('short'))];

/** A bulk-create job the test made through the local stack's gateway (a file of `bulkRows`). */
export interface TestJob {
  jobId: string;
  email: string;
  otherEmail: string;
  rows: string[][];
}

export const jobIdOf = (location: string | undefined) => /\/bulk-jobs\/([0-9a-f-]{36})$/.exec(location ?? '')?.[1];

/**
 * Submits a bulk-create job as the first organization's ADMIN, with e-mails unique to the run: a dry run
 * answered when done, or (`async`) a real one answered at once with 202 while the stack's worker runs it.
 * A raw request: the typed client cannot send a multipart file.
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
export const jobKinds: Record<string, { dryRun: boolean; async: boolean }> = {
  // Answered at once, so the replay races the stack's own run of the job (as a second delivery would in AWS).
  'bulk-worker.s3-put': { dryRun: false, async: true },
};

/** The subject of an e-mail of the first organization (it depends on the kind, the language and the realm only). */
export function subjectOf(kind: MailKind, language: string | undefined): string {
  const realm = stack().orgs[0]!.name;
  return renderMail(kind, (language ?? 'en') as Language, { name: '', realm, email: '', signInUrl: '' }).subject;
}

/** One event, filled in, and what the test made for it. */
export interface Replay {
  event: APIGatewayProxyEventV2;
  values: Record<string, string>;
  /** The event's JSON body, parsed before the replay (the handler's body parser replaces `event.body` in place). */
  request?: Record<string, unknown>;
  /** The user behind `__USER_UUID__`, `__USER_NAME__` and `__USER_EMAIL__`, as the API answered it. */
  user?: User;
  /** A base64 body (multipart), filled in and decoded, as the handler will read it. */
  decodedBody?: string;
  /** The job behind `__JOB_ID__`. */
  job?: TestJob;
}

/**
 * Reads one file of `events/` and fills its placeholders with fresh values (a new user, new e-mails, a
 * new job). A base64 body (multipart) has its placeholders in the decoded text: it is decoded, filled
 * and encoded again. No placeholder may be left (or the table of events/README.md and the tests disagree).
 */
const seededAdmin = seededAdminToken();

export async function fill(file: string): Promise<Replay> {
  const id = idOf(file);
  const text = readFileSync(join(eventsDir, file), 'utf8');
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
  // One ADMIN session for the run's events: a sign-in for each would push the ADMIN past its cap of
  // sessions, ending those other test files hold.
  const token = await seededAdmin();
  if (all.includes('__ACCESS_TOKEN__')) values.__ACCESS_TOKEN__ = token;
  // The seeded bot's default supervisor, and its first agent listed.
  const client = stackApiClient(token);
  if (all.includes('__SUPERVISOR_UUID__')) values.__SUPERVISOR_UUID__ = (await supervisorsOf(seededBot(), client).default()).body.uuid;
  if (all.includes('__AGENT_UUID__')) values.__AGENT_UUID__ = (await agentsOf(seededBot(), client).list()).body.content[0]!.uuid;
  if (all.includes('__SCIM_TOKEN')) Object.assign(values, await issueScimToken(org.uuid, token, id));
  let user: User | undefined;
  if (/__USER_(UUID|NAME|EMAIL)__/.test(all)) {
    user = await createUser(token);
    Object.assign(values, { __USER_UUID__: user.uuid, __USER_NAME__: user.name, __USER_EMAIL__: user.email });
  }
  if (all.includes('__OFFLINE_SESSION_ID__')) values.__OFFLINE_SESSION_ID__ = await offlineSessionOf(user!.email);
  if (/__WEBHOOK_(URL|ID)__|__DELIVERY_ID__/.test(all)) values.__WEBHOOK_URL__ = (await webhookReceiver()).url;
  if (/__WEBHOOK_ID__|__DELIVERY_ID__/.test(all)) values.__WEBHOOK_ID__ = await createWebhookOf(token, values.__WEBHOOK_URL__!);
  if (all.includes('__DELIVERY_ID__')) values.__DELIVERY_ID__ = await pingedDelivery(token, values.__WEBHOOK_ID__!);
  // The stack's demo OpenID provider answers the discovery document; aliases and domains fresh for each event.
  if (all.includes('__IDP_ISSUER__')) values.__IDP_ISSUER__ = stack().demoSso.issuer;
  if (all.includes('__NEW_IDP_ALIAS__')) values.__NEW_IDP_ALIAS__ = `event-${unique()}`;
  if (all.includes('__NEW_IDP_DOMAIN__')) values.__NEW_IDP_DOMAIN__ = `event-${unique()}.example`;
  if (all.includes('__IDP_ALIAS__')) values.__IDP_ALIAS__ = await identityProviderOf(token, id);
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
  expect(unfilledPlaceholders(all, `${JSON.stringify(event)}\n${decodedBody ?? ''}`)).toEqual([]);
  return {
    event,
    values,
    ...(request ? { request } : {}),
    ...(user ? { user } : {}),
    ...(decodedBody !== undefined ? { decodedBody } : {}),
    ...(job ? { job } : {}),
  };
}

/** An offline session of a user of the first organization (a password grant with `scope=offline_access`): its id. */
async function offlineSessionOf(email: string): Promise<string> {
  const response = await requestToken(stack().orgs[0]!.name, { grant_type: 'password', client_id: stack().clientId, username: email, password: TEST_PASSWORD, scope: 'offline_access' });
  expect(response.status).toBe(200);
  return ((await response.json()) as { session_state: string }).session_state;
}

let receiver: Receiver | undefined;
/** One receiver on 127.0.0.1 for every webhook the events make (the local stack allows http there). */
const webhookReceiver = async () => (receiver ??= await startReceiver());

const WEBHOOK = '/user-management/org/{orgUUID}/webhooks/{webhookId}';

/** A webhook subscription of the first organization, made through the API. */
async function createWebhookOf(token: string, url: string): Promise<string> {
  const body = { url, eventTypes: ['agent.updated'], enabled: true, excludeActors: [] };
  return (await expectStatus(201, stackApiClient(token).POST('/user-management/org/{orgUUID}/webhooks', { params: inFirstOrg(), body }))).body.id;
}

let sharedIdentityProvider: Promise<string> | undefined;

/**
 * An identity provider of the first organization (`__IDP_ALIAS__`), registered by its ADMIN for the
 * stack's demo OpenID provider: one for every event of the file (an organization holds at most 10),
 * but one of its own for the event that deletes it.
 */
function identityProviderOf(token: string, id: string): Promise<string> {
  const register = async () => {
    const alias = `event-${unique()}`;
    const body = { alias, displayName: 'Events test', issuer: stack().demoSso.issuer, clientId: 'events-test', clientSecret: 'events-test-secret', domains: [`${alias}.example`], enforce: false };
    return (await expectStatus(201, stackApiClient(token).POST('/user-management/org/{orgUUID}/identity-providers', { params: inFirstOrg(), body }))).body.alias;
  };
  if (id === 'identityProviders.delete') return register();
  return (sharedIdentityProvider ??= register());
}

/** The delivery of a ping to the subscription, once its attempt is listed. */
async function pingedDelivery(token: string, webhookId: string): Promise<string> {
  const client = stackApiClient(token);
  const params = { path: { orgUUID: stack().orgs[0]!.uuid, webhookId } };
  await expectStatus(202, client.POST(`${WEBHOOK}/test`, { params }));
  let attempts: { deliveryId: string }[] = [];
  await eventually(async () => (attempts = (await expectStatus(200, client.GET(`${WEBHOOK}/deliveries`, { params }))).body).length > 0, 'the ping delivered');
  return attempts[0]!.deliveryId;
}

/** A 202 with the job queued again; its upload's copy onto itself runs it again, to the same outcome. */
export async function expectRequeuedThenDone(result: APIGatewayProxyStructuredResultV2, { job, values }: Replay, more: Partial<BulkJob>): Promise<void> {
  expect(result.statusCode).toBe(202);
  expect(result.headers?.location).toMatch(new RegExp(`/bulk-jobs/${job!.jobId}$`));
  expect(bodyOf<JobView>(result)).toMatchObject({ jobId: job!.jobId, status: 'queued' });
  const seen = await jobOnceDone(values.__ORG_UUID__!, job!.jobId);
  expect(seen).toMatchObject({ status: 'done', dryRun: true, counts: { rows: 2, created: 1, failed: 1 }, ...more });
  expect(seen).not.toHaveProperty('lease');
}

/** A bulk job as the store holds it once it is done, or as it stands after 10 s. */
export async function jobOnceDone(orgUuid: string, jobId: string): Promise<BulkJob | undefined> {
  let job = await getJob(orgUuid, jobId);
  for (let waited = 0; job?.status !== 'done' && waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    job = await getJob(orgUuid, jobId);
  }
  return job;
}

export const bodyOf = <T>(result: APIGatewayProxyStructuredResultV2): T => JSON.parse(result.body!) as T;

/** What a route needs done before its event's replay (the user it names in the state it expects). */
export type Prepare = (replay: Replay, token: string) => Promise<void>;

/** What a route's answer must be beyond a 2xx status, checked against the stack where it changed something. */
export type Expectation = (result: APIGatewayProxyStructuredResultV2, replay: Replay, token: string) => Promise<void>;

/**
 * Throws, naming them, unless every key of a table names one of these events: a misnamed entry would
 * never run. The areas' tables are checked as they are declared, so a misnamed one fails its file.
 */
export function expectNamesEvents(table: Record<string, unknown>, ids: string[]): void {
  const unknown = Object.keys(table).filter((id) => !ids.includes(id));
  if (unknown.length > 0) throw new Error(`No sample event among ${ids.join(', ')} is named ${unknown.join(', ')}`);
}

const accountForms = new Set(['auth.accountSignIn', 'auth.accountPassword', 'auth.accountSignOut', 'auth.accountRevokeOfflineToken']);
/** The browser steps that answer a redirect: the sign-in form's and the link confirmation's 303, the account page's way to sign-in, the provider's return's and the end of a session's 302. */
const signInRedirects: Record<string, number> = { 'auth.authenticate': 303, 'auth.firstBrokerLogin': 303, 'auth.broker': 302, 'auth.endSession': 302, 'auth.account': 303 };

/**
 * Declares one test per route event of these functions: it fills the event, prepares what its route
 * needs, replays it through the function's handler, expects a 2xx (a 303 from the account page's forms, the sign-in form and the account page without a session, a 302 from an identity provider's return,
 * a 302 from the API's root, as a browser expects), the event's request id back, and what the area
 * expects of the route.
 */
export function replayRouteEvents(groups: ResourceGroup[], tables: { prepare?: Record<string, Prepare>; expectations?: Record<string, Expectation> } = {}): void {
  const { prepare = {}, expectations = {} } = tables;
  const areaFiles = httpFiles.filter((file) => groups.includes(routes.find((route) => route.id === idOf(file))?.group as ResourceGroup));
  expectNamesEvents(prepare, areaFiles.map(idOf));
  expectNamesEvents(expectations, areaFiles.map(idOf));

  afterAll(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  describe.each(areaFiles)('events/%s', (file) => {
    test('replays through its handler with a 2xx answer', async () => {
      const replay = await fill(file);
      const { event } = replay;
      const route = routes.find((candidate) => candidate.routeKey === event.routeKey);
      expect(route).toBeDefined();
      expect(route!.id).toBe(idOf(file));
      const token = await seededAdmin();
      await prepare[route!.id]?.(replay, token);
      const { handler } = (await import(`../../functions/${route!.group}/handler`)) as {
        handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
      };
      const result = await handler(event, context);
      if (accountForms.has(route!.id)) expect(result.statusCode).toBe(303);
      else if (signInRedirects[route!.id] !== undefined) expect(result.statusCode).toBe(signInRedirects[route!.id]);
      else if (route!.id === 'docs.root') expect(result.statusCode).toBe(302);
      else {
        expect(result.statusCode).toBeGreaterThanOrEqual(200);
        expect(result.statusCode).toBeLessThan(300);
      }
      expect(result.headers?.['x-request-id']).toBe('sample-request-1');
      await expectations[route!.id]?.(result, replay, token);
    });
  });
}

/** Imports the handler of the function a trigger event is named after. */
export async function triggerHandler<E, R>(file: string): Promise<(event: E) => Promise<R>> {
  const group = file.split('.')[0]!;
  return ((await import(`../../functions/${group}/handler`)) as { handler: (event: E) => Promise<R> }).handler;
}
