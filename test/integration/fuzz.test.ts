import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { percentDecodes } from '../../shared/edge/http/path-decoding';
import { addCollection, addFunction, addPersona, addSupervisor } from '../../shared/app/operator/operator.service';
import { resolveRoutes, type Route } from '../../shared/edge/api/routes';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { UUID } from '../support/http-client';
import { stack } from '../support/stack';
import { freshOrganization, member, uniqueEmail, type Member, type TestOrg } from '../support/user-helpers';

/**
 * Property-based fuzzing of every operation of the catalogue through the real local gateway: generated path values, queries, headers and bodies, sent as the ADMIN of an organization of
 * the test's own (sometimes as a VIEWER, anonymously or with a bad token). For every answer:
 *
 * - never a 5xx;
 * - every 4xx carries the spec's standard error body (section 7; the token endpoint may answer
 *   OAuth's own `{error, error_description}` instead, the SCIM endpoints SCIM's error schema), its
 *   `path` the request's;
 * - the request id is echoed: the one sent when it is safe, a generated one otherwise;
 * - a write refused (POST, PUT or DELETE answered 4xx) leaves its target as it was, read back with a
 *   GET before and after.
 *
 * The seed is fixed and printed; `FUZZ_SEED=<n>` replays another, `FUZZ_RUNS=<n>` changes how many
 * requests are sent (one per run; 600 by default).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// ---------------------------------------------------------------------------------------------------
// The organization the requests aim at, and what its paths can name.

interface World {
  org: TestOrg;
  viewer: Member;
  /** Existing resources by path parameter name. */
  known: Record<string, string>;
  /** A resource of another (seeded) organization per parameter, for cross-tenant paths. */
  foreign: Record<string, string>;
  targetEmail: string;
  personas: string[];
  functions: string[];
  collections: string[];
  clientId: string;
}

let world: World;

async function setUp(): Promise<World> {
  const org = await freshOrganization();
  const viewer = await member(org, 'VIEWER');
  const bot = org.botA1;
  const personas = [(await addPersona(bot, { name: 'Fuzz persona' })).uuid, (await addPersona(bot, { name: 'Second' })).uuid];
  const functions = [(await addFunction(bot, 'fnOne')).uuid, (await addFunction(bot, 'fnTwo')).uuid];
  const collections = [(await addCollection(bot, { name: 'Manuals' })).uuid];
  const supervisor = await addSupervisor(bot, { role: 'Fuzz supervisor', goal: 'Route', personaUuid: personas[0]! });
  const admin = org.admin.api;
  const botBase = `${stack().apiUrl}/${stack().generativeSubpath}/org/${org.orgUuid}/env/${org.envA}/bot/${bot}`;
  const agent = await admin.post<{ uuid: string }>(`${botBase}/agents`, {
    role: 'Fuzz agent',
    goal: 'Be fuzzed',
    persona: { uuid: personas[0] },
    inheritFromSupervisor: false,
    parameters: { requestTimeout: 1000, temperature: 0.5, topP: 0.5, presencePenalty: 0, frequencyPenalty: 0 },
  });
  const targetEmail = uniqueEmail('fuzz-target');
  const user = await admin.post(org.url(), {
    name: 'Fuzz target',
    email: targetEmail,
    role: 'VIEWER',
    permissions: [{ environmentUuid: org.envA, botUuid: bot }],
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
  });
  const job = await admin.post<{ jobId: string }>(org.url('/bulk-uploads'), undefined);
  if (agent.status !== 201 || user.status !== 200 || job.status !== 201) {
    throw new Error(`Fuzz set-up failed: agent ${agent.status}, user ${user.status}, job ${job.status}`);
  }
  const seeded = stack().orgs[0]!;
  const seededBot = seeded.environments[0]!.bots[0]!;
  return {
    org,
    viewer,
    known: {
      realm: org.realm,
      orgUUID: org.orgUuid,
      envUUID: org.envA,
      botUUID: bot,
      supervisorUUID: supervisor.uuid,
      agentUUID: agent.body.uuid,
      userId: user.body.uuid,
      jobId: job.body.jobId,
    },
    foreign: { realm: seeded.name, orgUUID: seeded.uuid, envUUID: seeded.environments[0]!.uuid, botUUID: seededBot.uuid },
    targetEmail,
    personas,
    functions,
    collections,
    clientId: stack().clientId,
  };
}

// ---------------------------------------------------------------------------------------------------
// Generators. What depends on the world (uuids, tokens) is chosen by a tag here and resolved at send time.

/**
 * Markers a generated JSON value carries instead of what JSON.stringify cannot write (numbers such as
 * `-0` or `1e400`) or what would make a counterexample unreadable (huge strings, deep nesting); they
 * are expanded when the body is written.
 */
const raw = (text: string) => `\u0000RAW:${text}\u0000`;
const long = (length: number) => `\u0000LONG:${length}\u0000`;
const deep = (depth: number, innermost = '') => `\u0000DEEP:${depth}:${innermost}\u0000`;
const MARKER = /"\\u0000(RAW|LONG|DEEP):([^"\\]*)\\u0000"/g;
const nested = (depth: number, innermost: string) => `${'['.repeat(depth)}${innermost}${']'.repeat(depth)}`;
function expandMarker(_match: string, kind: string, text: string): string {
  if (kind === 'LONG') return `"${'x'.repeat(Number(text))}"`;
  if (kind === 'DEEP') {
    const [depth, innermost = ''] = text.split(':');
    return nested(Number(depth), innermost);
  }
  return text;
}
/** `~<n>~` in a path or query value stands for n letters. */
const expandLong = (text: string) => text.replace(/~(\d+)~/g, (_match, n: string) => 'a'.repeat(Number(n)));

const MALFORMED = ['%', '%zz', '%E0%A4%A', '%C0%AF', '%FF', 'ab%2', '%%', '%u0041'];
const NUMBERS = [
  '-0',
  '5e-324',
  '-5e-324',
  '1e-200',
  '2.2250738585072014e-308',
  '1e-130',
  '9.99e-131',
  '1e200',
  '1e400',
  '-1e400',
  '9007199254740993',
  '123456789012345678901234567890123456789012',
  '0.1e1',
  '1E-7',
];

type PathValue = { kind: 'known' | 'foreign' | 'random-uuid' | 'upper-known' } | { kind: 'text'; text: string };

const pathValue: fc.Arbitrary<PathValue> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ kind: 'known' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'upper-known' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'foreign' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'random-uuid' as const }) },
  { weight: 2, arbitrary: fc.constantFrom(...MALFORMED).map((text) => ({ kind: 'text' as const, text })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...MALFORMED), fc.string({ maxLength: 8 }))
      .map(([bad, text]) => ({ kind: 'text' as const, text: `${encodeURIComponent(text)}${bad}` })),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((text) => ({ kind: 'text' as const, text: encodeURIComponent(text) })) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 3000 }).map((n) => ({ kind: 'text' as const, text: `~${n}~` })) },
);

const QUERY_NAMES = ['page', 'size', 'linesPerPage', 'orderBy', 'direction', 'searchTerm', 'searchTerms', 'status', 'name', 'limit', 'key', 'dryRun'];
const queryValue = fc.oneof(
  fc.constantFrom('', '0', '1', '-1', '5', '100', '101', '1e3', '99999999999999999999', 'ASC', 'desc', 'true', 'false', 'ALL', 'DELETED', 'createdAt', 'role'),
  fc.constantFrom(...MALFORMED),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.integer({ min: 200, max: 2000 }).map((n) => `~${n}~`),
);
/** A raw query string: known and unknown names, repeated names, malformed encodings left as they are. */
const query = fc
  .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(encodeURIComponent) }), queryValue), {
    maxLength: 5,
  })
  .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&'));

type Auth = 'admin' | 'viewer' | 'none' | 'garbage' | 'basic' | 'tampered';
const auth = fc.oneof(
  { weight: 16, arbitrary: fc.constant<Auth>('admin') },
  { weight: 2, arbitrary: fc.constant<Auth>('viewer') },
  { weight: 1, arbitrary: fc.constantFrom<Auth>('none', 'garbage', 'basic', 'tampered') },
);

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 60 });

const headers = fc.record(
  {
    'content-type': fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'text/plain',
        'multipart/form-data',
        'multipart/form-data; boundary=fuzz',
        'application/x-www-form-urlencoded',
        'application/xml',
        'application/octet-stream',
        'application/vnd.api+json',
        '',
      ),
      headerText,
    ),
    language: fc.oneof(fc.constantFrom('en', 'es', 'JA', 'pt', 'xx', '', 'en-US'), headerText),
    prefer: fc.oneof(fc.constantFrom('respond-async', 'return=minimal', 'respond-async, wait=5'), headerText),
    'if-match': fc.oneof(fc.constantFrom('"1"', '"2"', 'W/"1"', '*', '"999"', '"a", "1"', ''), headerText),
    accept: fc.constantFrom('application/json', '*/*', 'text/csv', 'image/png'),
    'x-forwarded-for': fc.constantFrom('127.0.0.1', 'not an ip'),
  },
  { requiredKeys: [] },
);

const requestId = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/) },
  { weight: 1, arbitrary: fc.constantFrom('has space', 'semi;colon', 'x'.repeat(129), 'new\\nline', '') },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** A JSON value a body field may be replaced by: edge numbers written raw, deep nesting, huge strings, any JSON. */
const nasty: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NUMBERS).map(raw) },
  { weight: 1, arbitrary: fc.constantFrom('NaN', 'Infinity', '-0', '5e-324', '', ' ', '\u0000', '#', '\u202e', '😀') },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => long(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 20_000 }).map((depth) => deep(depth)) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 5_000 }).map((depth) => deep(depth, '{}')) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, [], {}) },
  { weight: 1, arbitrary: fc.double() },
);

type Mutation = { at: number; op: 'set' | 'delete' | 'add'; value: unknown; key: string };
const mutations = fc.array(
  fc.record({
    at: fc.nat(),
    op: fc.constantFrom<Mutation['op']>('set', 'set', 'delete', 'add'),
    value: nasty,
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'uuid', 'version', 'extra'), fc.string({ maxLength: 10 })),
  }),
  { maxLength: 3 },
);

type Body =
  | { kind: 'none' }
  | { kind: 'template'; mutations: Mutation[] }
  | { kind: 'numbers'; at: number; value: string }
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'deep'; depth: number }
  | { kind: 'cut-template'; cut: number }
  | { kind: 'multipart'; csv: string; cut: number | undefined; part: string; boundary: string };

const csvText = fc.oneof(
  fc.constantFrom('Email,Name,Role\n', 'Email,EnvironmentUuid,EnvironmentName,Bot\n', '', '\uFEFF', 'a,b\n"unclosed'),
  fc.string({ maxLength: 200 }),
  fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.constantFrom('not-an-email', '', 'x@'), fc.constantFrom('ADMIN', 'KING', '')), { maxLength: 5 }).map(
    (rows) => `Email,Name,Role,Password\n${rows.map(([name, email, role]) => `${email},${name.replace(/[\r\n,"]/g, ' ')},${role},short`).join('\n')}\n`,
  ),
);

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Body>({ kind: 'none' }) },
  { weight: 8, arbitrary: mutations.map((list): Body => ({ kind: 'template', mutations: list })) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('numbers' as const), at: fc.nat(), value: fc.constantFrom(...NUMBERS) }),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value): Body => ({ kind: 'json', value })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 100 }).map((text): Body => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes): Body => ({ kind: 'bytes', bytes })) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 100_000 }).map((depth): Body => ({ kind: 'deep', depth })) },
  { weight: 1, arbitrary: fc.nat().map((cut): Body => ({ kind: 'cut-template', cut })) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('multipart' as const),
      csv: csvText,
      // Mostly cut short (the defect's input), one time in four whole.
      cut: fc.option(fc.nat(), { nil: undefined, freq: 4 }),
      part: fc.constantFrom('file', 'file', 'upload', '__proto__'),
      boundary: fc.constantFrom('fuzz', 'X'.repeat(70), '----WebKitFormBoundary7MA4YWxkTrZu0gW'),
    }),
  },
);

interface FuzzRequest {
  route: Route;
  method: string;
  path: Record<string, PathValue>;
  pathSuffix: string;
  query: string;
  auth: Auth;
  headers: Partial<Record<string, string>>;
  /** Whether the content type is the body's own (else whatever `headers` holds, or none). */
  typeFitsBody: boolean;
  requestId: string | undefined;
  body: Body;
}

const routes = () => resolveRoutes({ generative: stack().generativeSubpath, user: stack().userSubpath });

function request(route: Route): fc.Arbitrary<FuzzRequest> {
  const names = [...route.fullPath.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]!);
  return fc.record({
    route: fc.constant(route),
    method: fc.oneof({ weight: 19, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH') }),
    // Mostly every value names the world's resources, so requests get past the path to the body.
    path: fc.oneof(
      { weight: 3, arbitrary: fc.constant(Object.fromEntries(names.map((name) => [name, { kind: 'known' } as PathValue]))) },
      { weight: 2, arbitrary: fc.record(Object.fromEntries(names.map((name) => [name, pathValue]))) as fc.Arbitrary<Record<string, PathValue>> },
    ),
    pathSuffix: fc.oneof({ weight: 19, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '/extra', '/..', '/%zz') }),
    query,
    auth,
    headers,
    typeFitsBody: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    requestId,
    body,
  });
}

// ---------------------------------------------------------------------------------------------------
// From a generated request to an HTTP request.

function resolvePathValue(name: string, value: PathValue): string {
  switch (value.kind) {
    case 'known':
      return encodeURIComponent(world.known[name] ?? randomUUID());
    case 'upper-known':
      return encodeURIComponent((world.known[name] ?? randomUUID()).toUpperCase());
    case 'foreign':
      return encodeURIComponent(world.foreign[name] ?? world.known[name] ?? randomUUID());
    case 'random-uuid':
      return randomUUID();
    case 'text':
      return expandLong(value.text);
  }
}

/** A body close to what the route accepts, with the world's uuids in it. */
function template(route: Route): unknown {
  const { org, known, targetEmail, personas, functions, collections } = world;
  const parameters = { maximumTokens: 500, requestTimeout: 30000, temperature: 0.7, topP: 0.9, presencePenalty: 0.5, frequencyPenalty: -0.5 };
  const agent = {
    role: `Fuzz ${randomUUID().slice(0, 8)}`,
    goal: 'A goal',
    instructions: 'Be brief.',
    guardrails: 'Stay polite.',
    persona: { uuid: personas[0] },
    inheritFromSupervisor: true,
    constraints: [{ value: 'Confirm the order' }],
    tags: [{ name: '#fuzz' }],
    parameters,
    functions: [{ uuid: functions[0] }, { uuid: functions[1] }],
    knowledge: [{ uuid: collections[0] }],
  };
  const user = {
    name: 'Fuzz user',
    email: uniqueEmail('fuzz'),
    role: 'VIEWER',
    permissions: [{ environmentUuid: org.envA, botUuid: known.botUUID }],
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
  };
  switch (route.id) {
    case 'agents.create':
    case 'agents.update':
      return agent;
    case 'supervisors.update':
      return { persona: { uuid: personas[1] }, instructions: 'Hand over.', constraints: [{ value: 'Be kind' }], tags: [{ name: '#sup' }], parameters };
    case 'users.create':
      return user;
    case 'users.update':
      return { ...user, email: targetEmail, company: 'Fuzz Inc', image: 'https://example.test/a.png' };
    case 'users.activate':
      return { email: targetEmail, name: 'Back again' };
    case 'configurations.save':
      return { key: 'theme', value: 'dark', botUUID: known.botUUID };
    case 'bulk.delete':
      return [targetEmail, uniqueEmail('nobody')];
    case 'bulk.revoke':
      return [{ email: targetEmail, environmentUuid: org.envA, bot: known.botUUID }];
    case 'auth.token':
      // The target user, not the ADMIN: a wrong password counts towards a lock-out.
      return { grant_type: 'password', client_id: world.clientId, username: targetEmail, password: 'Wrong-Passw0rd' };
    default:
      return { anything: 1 };
  }
}

/** The OpenID Connect routes that read an OAuth form, and those that answer OAuth's own error body. */
const formRoutes = new Set(['auth.token', 'auth.revoke', 'auth.logout']);
const oauthRoutes = new Set([...formRoutes, 'auth.userinfo', 'auth.userinfoPost']);

/** Every place in a JSON value a mutation can reach: the root, each object and array, each member. */
function places(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const found = [at];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...places(item, [...at, i])));
  else if (value && typeof value === 'object') Object.entries(value).forEach(([key, item]) => found.push(...places(item, [...at, key])));
  return found;
}

function mutate(value: unknown, list: Mutation[]): unknown {
  let root = structuredClone(value) as unknown;
  for (const mutation of list) {
    const all = places(root);
    const path = all[mutation.at % all.length]!;
    if (path.length === 0) {
      if (mutation.op === 'set') root = mutation.value;
      continue;
    }
    const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root) as Record<string | number, unknown>;
    const key = path[path.length - 1]!;
    if (mutation.op === 'set') parent[key] = mutation.value;
    else if (mutation.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (!Array.isArray(parent)) Object.defineProperty(parent, mutation.key, { value: mutation.value, enumerable: true, configurable: true, writable: true });
  }
  return root;
}

const jsonText = (value: unknown) => (JSON.stringify(value) ?? 'null').replace(MARKER, expandMarker);

/** The body as bytes, and the content type it would naturally carry. */
function bodyOf(fuzz: FuzzRequest): { bytes: Buffer | undefined; naturalType: string | undefined } {
  const { body, route } = fuzz;
  const form = formRoutes.has(route.id);
  switch (body.kind) {
    case 'none':
      return { bytes: undefined, naturalType: undefined };
    case 'template': {
      const value = mutate(template(route), body.mutations);
      if (form && value && typeof value === 'object' && !Array.isArray(value)) {
        // A `%` in a value goes raw, so the form carries malformed percent-encodings too.
        const pairs = Object.entries(value).map(([name, item]) => `${encodeURIComponent(name)}=${typeof item === 'string' ? encodeURIComponent(item).replace(/%25/g, '%') : jsonText(item)}`);
        return { bytes: Buffer.from(pairs.join('&')), naturalType: 'application/x-www-form-urlencoded' };
      }
      return { bytes: Buffer.from(jsonText(value)), naturalType: 'application/json' };
    }
    case 'numbers': {
      // One number of the template (model parameters, for the agent area) written as the edge value.
      const value = template(route);
      const numeric = places(value).filter((at) => typeof at.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value) === 'number');
      const at = numeric[body.at % Math.max(numeric.length, 1)];
      const mutated = at ? mutate(value, [{ at: places(value).findIndex((p) => p.join('.') === at.join('.')), op: 'set', value: raw(body.value), key: '' }]) : value;
      return { bytes: Buffer.from(jsonText(mutated)), naturalType: 'application/json' };
    }
    case 'json':
      return { bytes: Buffer.from(jsonText(body.value)), naturalType: 'application/json' };
    case 'text':
      return { bytes: Buffer.from(body.text), naturalType: form ? 'application/x-www-form-urlencoded' : 'text/plain' };
    case 'bytes':
      return { bytes: Buffer.from(body.bytes), naturalType: 'application/octet-stream' };
    case 'deep':
      return { bytes: Buffer.from(nested(body.depth, '')), naturalType: 'application/json' };
    case 'cut-template': {
      const text = jsonText(template(route));
      return { bytes: Buffer.from(text.slice(0, body.cut % Math.max(text.length, 1))), naturalType: 'application/json' };
    }
    case 'multipart': {
      const whole = Buffer.from(
        `--${body.boundary}\r\nContent-Disposition: form-data; name="${body.part}"; filename="users.csv"\r\nContent-Type: text/csv\r\n\r\n` +
          `${body.csv}\r\n--${body.boundary}--\r\n`,
      );
      const bytes = body.cut === undefined ? whole : whole.subarray(0, body.cut % whole.length);
      return { bytes, naturalType: `multipart/form-data; boundary=${body.boundary}` };
    }
  }
}

function tokenFor(auth: Auth): string | undefined {
  switch (auth) {
    case 'admin':
      return `Bearer ${world.org.admin.token}`;
    case 'viewer':
      return `Bearer ${world.viewer.token}`;
    case 'none':
      return undefined;
    case 'garbage':
      return 'Bearer not-a-token';
    case 'basic':
      return `Basic ${Buffer.from('a:b').toString('base64')}`;
    case 'tampered': {
      const [header, , signature] = world.org.admin.token.split('.');
      return `Bearer ${header}.${Buffer.from('{"sub":"x"}').toString('base64url')}.${signature}`;
    }
  }
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

function toHttp(fuzz: FuzzRequest): Sent {
  const path = fuzz.route.fullPath.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => resolvePathValue(name, fuzz.path[name]!));
  const url = `${stack().apiUrl}${path}${fuzz.pathSuffix}${fuzz.query ? `?${expandLong(fuzz.query)}` : ''}`;
  const { bytes, naturalType } = bodyOf(fuzz);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fuzz.headers)) if (value !== undefined) headers[name] = value;
  // The content type fits the body most of the time, and is anything at all otherwise.
  if (naturalType && fuzz.typeFitsBody) headers['content-type'] = naturalType;
  const authorization = tokenFor(fuzz.auth);
  if (authorization) headers.authorization = authorization;
  if (fuzz.requestId !== undefined) headers['x-request-id'] = fuzz.requestId;
  // An async bulk job would still run while later requests check that nothing changed.
  if (fuzz.route.id === 'bulk.create') delete headers.prefer;
  return { method: fuzz.method, url, headers, body: fuzz.method === 'GET' ? undefined : bytes };
}

// ---------------------------------------------------------------------------------------------------
// Targets of writes: what must read back the same after a refused write.

async function read(url: string, token = world.org.admin.token): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return `${response.status} ${await response.text()}`;
}

function targetOf(fuzz: FuzzRequest): (() => Promise<string>) | undefined {
  const { org, known } = world;
  const botBase = `${stack().apiUrl}/${stack().generativeSubpath}/org/${org.orgUuid}/env/${org.envA}/bot/${known.botUUID}`;
  const users = () => read(org.url('?status=ALL&linesPerPage=100&orderBy=email&direction=ASC'));
  switch (fuzz.route.id) {
    case 'users.create':
    case 'users.activate':
    case 'bulk.create':
    case 'bulk.delete':
    case 'bulk.grant':
    case 'bulk.revoke':
      return users;
    case 'users.update':
    case 'users.delete':
      return async () => `${await read(org.url(`/${known.userId}`))}\n${await users()}`;
    case 'agents.create':
      return () => read(`${botBase}/agents?size=100&orderBy=createdAt`);
    case 'agents.update':
      return () => read(`${botBase}/agents/${known.agentUUID}`);
    case 'supervisors.update':
      return () => read(`${botBase}/supervisors/${known.supervisorUUID}`);
    case 'configurations.save': {
      const token = fuzz.auth === 'viewer' ? world.viewer.token : org.admin.token;
      return () => read(org.url('').replace(/\/users$/, '/configurations'), token);
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// The checks.

interface Answer {
  status: number;
  contentType: string | null;
  requestId: string | null;
  text: string;
}

function describeRequest(sent: Sent, answer: Answer): string {
  const body = sent.body === undefined ? '(none)' : `${sent.body.length} bytes: ${JSON.stringify(sent.body.subarray(0, 300).toString('latin1'))}`;
  return [
    `${sent.method} ${sent.url.length > 400 ? `${sent.url.slice(0, 400)}…` : sent.url}`,
    `headers ${JSON.stringify({ ...sent.headers, authorization: sent.headers.authorization?.slice(0, 20) })}`,
    `body ${body}`,
    `answer ${answer.status} ${answer.contentType ?? ''} x-request-id=${answer.requestId ?? '(none)'} ${answer.text.slice(0, 500)}`,
  ].join('\n  ');
}

function problemsWith(fuzz: FuzzRequest, sent: Sent, answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`a ${answer.status}`);
  const given = sent.headers['x-request-id'];
  if (given !== undefined && SAFE_REQUEST_ID.test(given)) {
    if (answer.requestId !== given) problems.push(`x-request-id ${answer.requestId} instead of the one sent`);
  } else if (!answer.requestId || !UUID.test(answer.requestId)) {
    problems.push(`x-request-id ${answer.requestId}: a generated uuid was expected`);
  }
  if (answer.status >= 400) problems.push(...errorBodyProblems(fuzz, sent, answer));
  if (!percentDecodes(new URL(sent.url).pathname) && !(answer.status === 404 && answer.text.includes('"errorCode":"NOT_FOUND"'))) {
    problems.push('a path that does not percent-decode answered other than 404 NOT_FOUND');
  }
  return problems;
}

/** The SCIM endpoints answer SCIM's error schema (RFC 7644 §3.12) with a `scimType`, as `application/scim+json`. */
function scimErrorProblems(answer: Answer): string[] {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return ['a SCIM error body that is not JSON'];
  }
  const problems: string[] = [];
  const expected = {
    schemas: JSON.stringify(body.schemas) === JSON.stringify(['urn:ietf:params:scim:api:messages:2.0:Error']),
    status: body.status === String(answer.status),
    scimType: typeof body.scimType === 'string' && /^[a-zA-Z]+$/.test(body.scimType),
    detail: typeof body.detail === 'string' && body.detail.length > 0,
  };
  for (const [field, fine] of Object.entries(expected)) if (!fine) problems.push(`SCIM error body field ${field} is ${JSON.stringify(body[field])?.slice(0, 100)}`);
  const extra = Object.keys(body).filter((key) => !(key in expected));
  if (extra.length > 0) problems.push(`SCIM error body has ${extra.join(', ')}`);
  if (/\w+Exception\b|\bstack\b|\n\s+at |\.[jt]s:\d+/.test(answer.text)) problems.push('the error body leaks internals');
  return problems;
}

function errorBodyProblems(fuzz: FuzzRequest, sent: Sent, answer: Answer): string[] {
  if (fuzz.route.errors?.scim && answer.contentType?.startsWith('application/scim+json')) return scimErrorProblems(answer);
  if (!answer.contentType?.startsWith('application/json')) return [`content type ${answer.contentType} on an error`];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return ['an error body that is not JSON'];
  }
  const oauth = oauthRoutes.has(fuzz.route.id) && typeof body.error === 'string' && typeof body.error_description === 'string';
  if (oauth) return [];
  const problems: string[] = [];
  const expected = {
    timestamp: typeof body.timestamp === 'number' && Math.abs(body.timestamp - Date.now()) < 60_000,
    errorCode: typeof body.errorCode === 'string' && /^[A-Z_]+$/.test(body.errorCode),
    errorType: body.errorType === 'USER_ERROR',
    message: typeof body.message === 'string' && body.message.length > 0,
    path: body.path === new URL(sent.url).pathname,
  };
  for (const [field, fine] of Object.entries(expected)) if (!fine) problems.push(`error body field ${field} is ${JSON.stringify(body[field])?.slice(0, 100)}`);
  const allowed = new Set(['timestamp', 'errorCode', 'errorType', 'message', 'path', 'details']);
  const extra = Object.keys(body).filter((key) => !allowed.has(key));
  if (extra.length > 0) problems.push(`error body has ${extra.join(', ')}`);
  if (body.details !== undefined) {
    const details = body.details;
    const wellFormed =
      Array.isArray(details) &&
      details.every(
        (d: Record<string, unknown>) => typeof d.fieldName === 'string' && typeof d.message === 'string' && typeof d.errorCode === 'string',
      );
    if (!wellFormed) problems.push('details are not a list of { fieldName, message, errorCode }');
  }
  if (/\w+Exception\b|\bstack\b|\n\s+at |\.[jt]s:\d+/.test(answer.text)) problems.push('the error body leaks internals');
  return problems;
}

/**
 * The inputs the first fuzz run found answered with a 5xx, run first on every seed: a multipart body cut
 * short on both multipart routes (as the ADMIN and as a VIEWER), a path value that does not
 * percent-decode in every position of every route, and tiny doubles in model parameters.
 */
function knownDefects(all: Route[]): FuzzRequest[] {
  const plain: Omit<FuzzRequest, 'route' | 'method' | 'path'> = {
    pathSuffix: '',
    query: '',
    auth: 'admin',
    headers: {},
    typeFitsBody: true,
    requestId: 'fuzz-known-defect',
    body: { kind: 'none' },
  };
  const known = (route: Route) =>
    Object.fromEntries([...route.fullPath.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => [match[1]!, { kind: 'known' } as PathValue]));
  const of = (route: Route, extra: Partial<FuzzRequest>): FuzzRequest => ({ ...plain, route, method: route.method, path: known(route), ...extra });
  const examples: FuzzRequest[] = [];
  for (const route of all) {
    if (route.id === 'bulk.create' || route.id === 'bulk.grant') {
      for (const auth of ['admin', 'viewer'] as const) {
        examples.push(of(route, { auth, body: { kind: 'multipart', csv: 'Email,Name,Role\nann@example.test,Ann,VIEWER\n', cut: 150, part: 'file', boundary: 'fuzz' } }));
      }
    }
    Object.keys(known(route)).forEach((name, i) => {
      examples.push(of(route, { path: { ...known(route), [name]: { kind: 'text', text: MALFORMED[i % MALFORMED.length]! } } }));
    });
    if (['agents.create', 'agents.update', 'supervisors.update'].includes(route.id)) {
      for (const [at, value] of [[2, '5e-324'], [3, '1e-200'], [4, '2.2250738585072014e-308']] as const) {
        examples.push(of(route, { body: { kind: 'numbers', at, value } }));
      }
    }
  }
  return examples;
}

// ---------------------------------------------------------------------------------------------------

beforeAll(async () => {
  world = await setUp();
});

test(`${RUNS} requests over every route: never a 5xx, the standard error body, the request id, refused writes change nothing`, async () => {
  const all = routes();
  const statuses = new Map<number, number>();
  let sentCount = 0;
  const started = Date.now();
  console.log(`fuzz: seed ${SEED}, ${RUNS} requests over ${all.length} routes (FUZZ_SEED and FUZZ_RUNS change them)`);

  const examples = knownDefects(all);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...all).chain(request), async (fuzz) => {
      const sent = toHttp(fuzz);
      const write = sent.method !== 'GET';
      const target = write ? targetOf(fuzz) : undefined;
      const before = target ? await target() : undefined;

      const response = await fetch(sent.url, { method: sent.method, headers: sent.headers, body: sent.body, signal: AbortSignal.timeout(40_000) }).catch(
        (error: unknown) => {
          // The connection dropped or hung: the stack itself fell over (an unhandled error ends its process).
          const cause = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error);
          throw new Error(`no answer (${cause})\n  ${describeRequest(sent, { status: 0, contentType: null, requestId: null, text: '' })}`);
        },
      );
      const answer: Answer = {
        status: response.status,
        contentType: response.headers.get('content-type'),
        requestId: response.headers.get('x-request-id'),
        text: await response.text(),
      };
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      sentCount += 1;

      const problems = problemsWith(fuzz, sent, answer);
      if (target && answer.status >= 400) {
        const after = await target();
        if (after !== before) problems.push(`a refused write changed its target:\n    before ${before?.slice(0, 600)}\n    after  ${after.slice(0, 600)}`);
      }
      if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  ${describeRequest(sent, answer)}`);
    }),
    {
      seed: SEED,
      numRuns: RUNS,
      endOnFailure: true,
      examples: examples.map((example) => [example]),
      // The failing request as sent (bounded), not the generated value (which may hold large bodies).
      reporter: (details) => {
        if (!details.failed) return;
        const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        throw new Error(
          `Fuzz request ${details.numRuns} of seed ${details.seed} failed (replay: FUZZ_SEED=${details.seed} FUZZ_RUNS=${details.numRuns} npx jest test/integration/fuzz.test.ts):\n${cause}`,
        );
      },
    },
  );

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`fuzz: ${sentCount} requests (the ${examples.length} known-defect examples, then generated ones) in ${seconds} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);
}, 300_000);
