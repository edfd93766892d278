import { randomUUID } from 'node:crypto';
import type { Route } from '../../shared/edge/api/routes';
import { TEST_PASSWORD } from './auth-helpers';
import { expandLong, expandMarker, MARKER, nested, raw, type Auth, type FuzzRequest, type Mutation, type PathValue } from './fuzz-generators';
import type { World } from './fuzz-world';
import { stack } from './stack';
import { uniqueEmail } from './user-helpers';

/** From a generated request (fuzz-generators.ts) to the HTTP request the fuzz test sends: path values, body bytes, content type, token. */

function resolvePathValue(world: World, name: string, value: PathValue): string {
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
function template(world: World, route: Route): unknown {
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
    case 'auth.deviceAuthorization':
      return { client_id: world.clientId, scope: 'openid offline_access' };
    default:
      return { anything: 1 };
  }
}

/** The OpenID Connect routes that read an OAuth form, and those that answer OAuth's own error body. */
const formRoutes = new Set(['auth.token', 'auth.revoke', 'auth.logout', 'auth.deviceAuthorization']);
export const oauthRoutes = new Set([...formRoutes, 'auth.userinfo', 'auth.userinfoPost']);

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
function bodyOf(world: World, fuzz: FuzzRequest): { bytes: Buffer | undefined; naturalType: string | undefined } {
  const { body, route } = fuzz;
  const form = formRoutes.has(route.id);
  switch (body.kind) {
    case 'none':
      return { bytes: undefined, naturalType: undefined };
    case 'template': {
      const value = mutate(template(world, route), body.mutations);
      if (form && value && typeof value === 'object' && !Array.isArray(value)) {
        // A `%` in a value goes raw, so the form carries malformed percent-encodings too.
        const pairs = Object.entries(value).map(([name, item]) => `${encodeURIComponent(name)}=${typeof item === 'string' ? encodeURIComponent(item).replace(/%25/g, '%') : jsonText(item)}`);
        return { bytes: Buffer.from(pairs.join('&')), naturalType: 'application/x-www-form-urlencoded' };
      }
      return { bytes: Buffer.from(jsonText(value)), naturalType: 'application/json' };
    }
    case 'numbers': {
      // One number of the template (model parameters, for the agent area) written as the edge value.
      const value = template(world, route);
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
      const text = jsonText(template(world, route));
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

function tokenFor(world: World, auth: Auth): string | undefined {
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

export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

/** The HTTP request a generated request stands for, with the world's values in it. */
export function toHttp(world: World, fuzz: FuzzRequest): Sent {
  const path = fuzz.route.fullPath.replace(/\{([A-Za-z0-9_]+)\}/g, (_match, name: string) => resolvePathValue(world, name, fuzz.path[name]!));
  const url = `${stack().apiUrl}${path}${fuzz.pathSuffix}${fuzz.query ? `?${expandLong(fuzz.query)}` : ''}`;
  const { bytes, naturalType } = bodyOf(world, fuzz);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fuzz.headers)) if (value !== undefined) headers[name] = value;
  // The content type fits the body most of the time, and is anything at all otherwise.
  if (naturalType && fuzz.typeFitsBody) headers['content-type'] = naturalType;
  const authorization = tokenFor(world, fuzz.auth);
  if (authorization) headers.authorization = authorization;
  if (fuzz.requestId !== undefined) headers['x-request-id'] = fuzz.requestId;
  // An async bulk job would still run while later requests check that nothing changed.
  if (fuzz.route.id === 'bulk.create') delete headers.prefer;
  return { method: fuzz.method, url, headers, body: fuzz.method === 'GET' ? undefined : bytes };
}
