import fc from 'fast-check';
import { resolveRoutes, type Route } from '../../shared/edge/api/routes';
import { stack } from './stack';

/**
 * The fuzz test's generated requests (test/integration/fuzz.test.ts): path values, queries, headers
 * and bodies for a route of the catalogue. What depends on the world (uuids, tokens) is chosen by a
 * tag here and resolved when the request is sent (fuzz-requests.ts).
 */

/**
 * Markers a generated JSON value carries instead of what JSON.stringify cannot write (numbers such as
 * `-0` or `1e400`) or what would make a counterexample unreadable (huge strings, deep nesting); they
 * are expanded when the body is written.
 */
export const raw = (text: string) => `\u0000RAW:${text}\u0000`;
const long = (length: number) => `\u0000LONG:${length}\u0000`;
const deep = (depth: number, innermost = '') => `\u0000DEEP:${depth}:${innermost}\u0000`;
export const MARKER = /"\\u0000(RAW|LONG|DEEP):([^"\\]*)\\u0000"/g;
export const nested = (depth: number, innermost: string) => `${'['.repeat(depth)}${innermost}${']'.repeat(depth)}`;
export function expandMarker(_match: string, kind: string, text: string): string {
  if (kind === 'LONG') return `"${'x'.repeat(Number(text))}"`;
  if (kind === 'DEEP') {
    const [depth, innermost = ''] = text.split(':');
    return nested(Number(depth), innermost);
  }
  return text;
}
/** `~<n>~` in a path or query value stands for n letters. */
export const expandLong = (text: string) => text.replace(/~(\d+)~/g, (_match, n: string) => 'a'.repeat(Number(n)));

export const MALFORMED = ['%', '%zz', '%E0%A4%A', '%C0%AF', '%FF', 'ab%2', '%%', '%u0041'];
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

export type PathValue = { kind: 'known' | 'foreign' | 'random-uuid' | 'upper-known' } | { kind: 'text'; text: string };

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

export type Auth = 'admin' | 'viewer' | 'none' | 'garbage' | 'basic' | 'tampered';
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

export type Mutation = { at: number; op: 'set' | 'delete' | 'add'; value: unknown; key: string };
const mutations = fc.array(
  fc.record({
    at: fc.nat(),
    op: fc.constantFrom<Mutation['op']>('set', 'set', 'delete', 'add'),
    value: nasty,
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'uuid', 'version', 'extra'), fc.string({ maxLength: 10 })),
  }),
  { maxLength: 3 },
);

export type Body =
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

export interface FuzzRequest {
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

export const routes = () => resolveRoutes({ generative: stack().generativeSubpath, user: stack().userSubpath });

export function request(route: Route): fc.Arbitrary<FuzzRequest> {
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

/**
 * The inputs the first fuzz run found answered with a 5xx, run first on every seed: a multipart body cut
 * short on both multipart routes (as the ADMIN and as a VIEWER), a path value that does not
 * percent-decode in every position of every route, and tiny doubles in model parameters.
 */
export function knownDefects(all: Route[]): FuzzRequest[] {
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
