import fc from 'fast-check';
import { bearer } from '../support/auth-helpers';
import { send } from '../support/http-client';
import { ACCESS_EXTENSION, issueScimToken, oktaUser, PATCH_OP, SCIM_ERROR, scimUrl, USER_SCHEMA } from '../support/scim-client';
import { stack, userArea } from '../support/stack';
import { freshOrganization, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * Fuzzing of the edges a directory, an integrator or an attacker reaches besides the core: SCIM
 * filters and PATCH bodies, bundle bodies (JSON and YAML) and webhook bodies, random and adversarial
 * (attribute paths naming object internals, strings of backslashes, deep nesting, aliases, huge
 * numbers). Every answer is a 2xx or a 4xx with the standard error body (SCIM's error schema on SCIM
 * routes), never a 5xx, and arrives within the gateway's time; after each batch a canary proves the
 * process unharmed (a strict body still validated field by field, a SCIM user still created).
 *
 * `FUZZ_SEED=<n>` replays another seed, `FUZZ_RUNS=<n>` changes the requests per batch (100 by default).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
/** API Gateway's integration timeout: an answer later than this is a hang. */
const ANSWER_WITHIN_MS = 30_000;
/** A batch's own time: 100 requests take seconds, but a loaded machine may be many times slower. */
const BATCH_MS = 300_000;

let org: TestOrg;
let scimToken: string;
let userId: string;
let webhookId: string;

interface Answer {
  status: number;
  contentType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function call(url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the checks below say what they expected.
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body };
}

const describeRequest = (what: string, input: unknown) => `${what} ${JSON.stringify(input).slice(0, 400)}`;

function expectScimAnswer(answer: Answer, request: string): void {
  if (answer.status >= 500) throw new Error(`${request} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  if (answer.status < 400) return;
  expect(answer.contentType).toMatch(/^application\/scim\+json/);
  expect(answer.body).toMatchObject({ schemas: [SCIM_ERROR], status: String(answer.status), detail: expect.any(String) });
  expect(answer.body.detail).not.toMatch(/Cannot read|is not a function|TypeError|RangeError|\bat .+\.js/);
}

function expectStandardAnswer(answer: Answer, request: string): void {
  if (answer.status >= 500) throw new Error(`${request} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  if (answer.status < 400) return;
  expect(answer.body).toMatchObject({ errorCode: expect.any(String), message: expect.any(String), path: expect.any(String) });
  expect(answer.body.message).not.toMatch(/Cannot read|is not a function|TypeError|RangeError|YAMLParseError|\bat .+\.js/);
}

/** A SCIM request, waiting out the organization's rate limit (429 is a fine answer, but the canary must get through). */
async function scim(method: string, path: string, body?: unknown): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call(scimUrl(org.orgUuid, path), {
      method,
      headers: { ...bearer(scimToken), ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    if (answer.status !== 429 || attempt >= 10) return answer;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function canary(): Promise<void> {
  const strict = await send<{ details: { fieldName: string }[] }>(userArea(org.orgUuid, '/configurations'), {
    method: 'POST',
    headers: { ...bearer(org.admin.token), 'content-type': 'application/json' },
    body: JSON.stringify({ key: 'canary', value: 'ok', extra: true }),
  });
  expect(strict.status).toBe(422);
  expect(strict.body.details.map((detail) => detail.fieldName)).toEqual(['extra']);
  expect((await scim('POST', '/Users', oktaUser(uniqueEmail('canary')))).status).toBe(201);
}

beforeAll(async () => {
  org = await freshOrganization();
  ({ token: scimToken } = await issueScimToken(org, { defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] } }));
  const user = await scim('POST', '/Users', oktaUser(uniqueEmail('fuzz-edges')));
  userId = user.body.id;
  const webhook = await send<{ id: string }>(userArea(org.orgUuid, '/webhooks'), {
    method: 'POST',
    headers: { ...bearer(org.admin.token), 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/fuzz', eventTypes: ['*'], enabled: false }),
  });
  expect(webhook.status).toBe(201);
  webhookId = webhook.body.id;
});

// ---------------------------------------------------------------------------------------------------
// Generators.

const hostileNames = ['__proto__', 'constructor', 'prototype', '__PROTO__', 'toString', 'hasOwnProperty', 'valueOf'];
const attributeNames = ['userName', 'id', 'externalId', 'active', 'displayName', 'emails', 'emails.value', 'emails.type', 'name.givenName', 'name.familyName', 'name.formatted', 'meta.lastModified', 'meta.created', 'title', 'name', 'urn:ietf:params:scim:schemas:core:2.0:User:userName', `${ACCESS_EXTENSION}:role`];
const attributePath = fc.oneof(
  fc.constantFrom(...attributeNames),
  fc.constantFrom(...hostileNames).map((name) => name),
  fc.tuple(fc.constantFrom(...attributeNames, ...hostileNames), fc.constantFrom(...hostileNames, 'x', 'value', '')).map(([a, b]) => `${a}.${b}`),
  fc.string({ maxLength: 12 }),
);
const stringValue = fc.oneof(
  fc.string({ maxLength: 20 }).map((text) => JSON.stringify(text)),
  fc.integer({ min: 1, max: 60 }).map((n) => `"${'\\'.repeat(n)}`),
  fc.integer({ min: 1, max: 40 }).map((n) => `"${'\\"'.repeat(n)}"`),
  fc.constantFrom('"\\u0000"', '"\\q"', '"\\ud800"', '"é"'),
);
const filterToken = fc.oneof(
  attributePath,
  fc.constantFrom('eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le', 'pr', 'and', 'or', 'not', 'AND', 'Or'),
  fc.constantFrom('(', ')', '[', ']', '.', '"', 'true', 'false', 'null', '1e400', '-0', '5e-324'),
  stringValue,
);
const comparison = fc.tuple(attributePath, fc.constantFrom('eq', 'ne', 'co', 'sw', 'gt', 'pr'), stringValue).map(([path, op, value]) => (op === 'pr' ? `${path} pr` : `${path} ${op} ${value}`));
const structuredFilter: fc.Arbitrary<string> = fc.letrec((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small' },
    comparison,
    fc.tuple(tie('filter'), fc.constantFrom('and', 'or'), tie('filter')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('filter').map((inner) => `not (${inner})`),
    tie('filter').map((inner) => `(${inner})`),
    tie('filter').map((inner) => `emails[${inner}]`),
  ),
})).filter as fc.Arbitrary<string>;
const filter = fc.oneof(structuredFilter, fc.array(filterToken, { maxLength: 30 }).map((tokens) => tokens.join(' ')), fc.string({ maxLength: 200 }));

const jsonValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom<unknown>({ __proto__: { pwned: 1 } }, JSON.parse('{"__proto__":{"pwned":1}}'), { constructor: { prototype: { pwned: 1 } } }));
const patchOperation = fc.record(
  {
    op: fc.constantFrom('add', 'replace', 'remove', 'Replace', 'move', 'copy', ''),
    path: fc.oneof(attributePath, filter.map((inner) => `emails[${inner}].value`), fc.string({ maxLength: 40 })),
    value: fc.oneof(jsonValue, fc.dictionary(attributePath, jsonValue, { maxKeys: 4 })),
  },
  { requiredKeys: ['op'] },
);
const patchBody = fc.oneof(
  fc.record({ schemas: fc.constantFrom([PATCH_OP], [USER_SCHEMA], []), Operations: fc.array(patchOperation, { maxLength: 5 }) }),
  fc.jsonValue({ maxDepth: 4 }),
);

const yamlText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.constantFrom(
    '__proto__:\n  pwned: 1\n',
    'a: &a [1,2,3]\nb: [*a,*a,*a,*a]\nc: [*b,*b,*b,*b]\nd: [*c,*c,*c,*c]\n',
    `${'- '.repeat(500)}x\n`,
    `${'['.repeat(2000)}${']'.repeat(2000)}`,
    `formatVersion: 1\nagents: !!js/function "function () {}"\n`,
    'formatVersion: 1e400\nsupervisors: []\nagents: []\n',
    `key: "${'\\'.repeat(5000)}"\n`,
  ),
  fc.dictionary(fc.oneof(fc.constantFrom(...hostileNames, 'formatVersion', 'agents', 'supervisors'), fc.string({ maxLength: 8 })), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }).map((map) =>
    Object.entries(map)
      .map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`)
      .join('\n'),
  ),
);
const bundleBody = fc.oneof(
  fc.record({ formatVersion: fc.oneof(fc.constant(1), fc.jsonValue()), supervisors: fc.jsonValue({ maxDepth: 3 }), agents: fc.array(fc.dictionary(fc.oneof(fc.constantFrom('role', 'goal', 'knowledge', ...hostileNames), fc.string({ maxLength: 6 })), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }), { maxLength: 3 }) }).map((bundle) => ({ text: JSON.stringify(bundle), type: 'application/json' })),
  jsonValue.map((value) => ({ text: JSON.stringify(value), type: 'application/json' })),
  yamlText.map((text) => ({ text, type: 'application/yaml' })),
);

const webhookBody = fc.record(
  {
    url: fc.oneof(fc.webUrl(), fc.constantFrom('https://[::a9fe:a9fe]/x', 'https://169.254.169.254/', 'http://127.0.0.1:9/x', 'https://user:pw@example.com/', 'ftp://example.com', 'https://localhost/'), fc.string({ maxLength: 50 })),
    eventTypes: fc.oneof(fc.array(fc.constantFrom('*', 'user.created', 'com.agentplatform.user.created', 'agent.updated', 'nope', '__proto__'), { maxLength: 4 }), fc.jsonValue()),
    enabled: fc.oneof(fc.boolean(), fc.jsonValue()),
    excludeActors: fc.oneof(fc.array(fc.uuid(), { maxLength: 3 }), fc.jsonValue()),
    description: fc.oneof(fc.string({ maxLength: 250 }), fc.jsonValue()),
  },
  { requiredKeys: [] },
).chain((body) => fc.oneof(fc.constant<unknown>(body), jsonValue));

// ---------------------------------------------------------------------------------------------------

const property = <T>(arbitrary: fc.Arbitrary<T>, check: (input: T) => Promise<void>) =>
  fc.assert(fc.asyncProperty(arbitrary, check), { seed: SEED, numRuns: RUNS, endOnFailure: true });

const botUrl = () => `${stack().apiUrl}/${stack().generativeSubpath}/org/${org.orgUuid}/env/${org.envA}/bot/${org.botA1}`;

test('SCIM filters: a SCIM answer, never a 5xx or a JavaScript error', async () => {
  await property(filter, async (text) => {
    expectScimAnswer(await scim('GET', `/Users?filter=${encodeURIComponent(text)}&count=5`), describeRequest('filter', text));
  });
  await canary();
}, BATCH_MS);

test('SCIM attribute lists and PATCH bodies: a SCIM answer, never a 5xx', async () => {
  await property(fc.tuple(fc.array(attributePath, { maxLength: 4 }), patchBody), async ([names, body]) => {
    expectScimAnswer(await scim('GET', `/Users/${userId}?attributes=${encodeURIComponent(names.join(','))}`), describeRequest('attributes', names));
    expectScimAnswer(await scim('PATCH', `/Users/${userId}`, body), describeRequest('PATCH', body));
  });
  await canary();
}, BATCH_MS);

test('bundle plans, JSON and YAML: the standard answer, never a 5xx', async () => {
  await property(bundleBody, async ({ text, type }) => {
    const answer = await call(`${botUrl()}/bundle/plan`, { method: 'POST', headers: { ...bearer(org.admin.token), 'content-type': type }, body: text });
    expectStandardAnswer(answer, describeRequest(`bundle plan (${type})`, text));
  });
  await canary();
}, BATCH_MS);

test('webhook bodies: the standard answer, never a 5xx', async () => {
  await property(webhookBody, async (body) => {
    const request = describeRequest('webhook', body);
    const headers = { ...bearer(org.admin.token), 'content-type': 'application/json' };
    const updated = await call(userArea(org.orgUuid, `/webhooks/${webhookId}`), { method: 'PUT', headers, body: JSON.stringify(body) });
    expectStandardAnswer(updated, request);
    const created = await call(userArea(org.orgUuid, '/webhooks'), { method: 'POST', headers, body: JSON.stringify(body) });
    expectStandardAnswer(created, request);
    if (created.status === 201) await send(userArea(org.orgUuid, `/webhooks/${created.body.id}`), { method: 'DELETE', headers: bearer(org.admin.token) });
  });
  await canary();
}, BATCH_MS);
