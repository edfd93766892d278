import { randomUUID } from 'node:crypto';
import { takesUserToken, type TokenAccess } from '../../shared/edge/api/operation';
import { resolveRoutes, type Route } from '../../shared/edge/api/routes';
import { bearer } from '../support/auth-helpers';
import { stack } from '../support/stack';
import { freshOrganization, member, type Member, type TestOrg } from '../support/user-helpers';

/**
 * Who may call is checked before the body is read: for every operation of the catalogue that takes a
 * user's token, a caller without the access it declares sends a request whose query and body are
 * invalid, and gets 403 (or the 404 that hides another organization), never a 400, 415 or 422 that
 * would describe the schema. The same request from a caller with the access is refused by validation,
 * which shows the request really is invalid.
 */

let org: TestOrg;
let viewer: Member;
let stranger: TestOrg;

beforeAll(async () => {
  [org, stranger] = await Promise.all([freshOrganization(), freshOrganization()]);
  // A VIEWER of bot A1 only: no ADMIN, not the other users, not bot A2, and no writes to A1.
  viewer = await member(org, 'VIEWER', { permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] });
});

const routes = resolveRoutes({ generative: stack().generativeSubpath, user: stack().userSubpath }).filter((route) => takesUserToken(route.access));

/** Who the declaration shuts out (a viewer of bot A1 only, or another organization's ADMIN), the bot the path names, and the status it must get. */
function outsider(access: TokenAccess): { who: 'viewer' | 'stranger'; bot: 'A1' | 'A2'; expected: number } | undefined {
  if ('org' in access) return access.org === 'admin' ? { who: 'viewer', bot: 'A1', expected: 403 } : { who: 'stranger', bot: 'A1', expected: 404 };
  if ('user' in access) return { who: 'viewer', bot: 'A1', expected: 403 };
  if ('bot' in access) return { who: 'viewer', bot: access.bot === 'read' ? 'A2' : 'A1', expected: 403 };
  return undefined;
}

function pathOf(route: Route, botUuid: string): string {
  const values: Record<string, string> = {
    orgUUID: org.orgUuid,
    envUUID: org.envA,
    botUUID: botUuid,
    // Another user than the viewer: an ADMIN of the organization.
    userId: org.admin.uuid,
    revision: '1',
    deliveryId: randomUUID().replace(/-/g, ''),
  };
  return route.fullPath.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? randomUUID());
}

/** An invalid request for the route: a query that breaks any schema, and a body of the wrong shape in its media type. */
function invalidRequest(route: Route): { query: string; init: RequestInit } {
  const query = '?page=-7&size=none&linesPerPage=x&limit=0&dryRun=maybe&at=yesterday&against=x&name=' + 'n'.repeat(300);
  if (route.request?.multipart) {
    return { query, init: { headers: { 'content-type': 'multipart/form-data; boundary=nope' }, body: '--nope\r\nContent-Disposition: form-data; name="file"\r\n\r\nnot csv' } };
  }
  if (route.request?.bodyMediaTypes?.includes('application/yaml')) {
    return { query, init: { headers: { 'content-type': 'application/yaml' }, body: 'formatVersion: [: :\n' } };
  }
  return { query, init: { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notAField: [1, 2, 3], name: 7, email: false }) } };
}

async function send(route: Route, token: string, botUuid: string): Promise<number> {
  const { query, init } = invalidRequest(route);
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE' ? true : Boolean(route.request?.body);
  const response = await fetch(`${stack().apiUrl}${pathOf(route, botUuid)}${query}`, {
    method: route.method,
    ...(hasBody ? init : {}),
    headers: { ...(hasBody ? (init.headers as Record<string, string>) : {}), ...bearer(token) },
  });
  await response.arrayBuffer();
  return response.status;
}

test('every operation that takes a user token declares who may call it; only the own-data ones are open to every signed-in user', () => {
  const open = routes.filter((route) => outsider(route.access as TokenAccess) === undefined).map((route) => route.id);
  expect(open.sort()).toEqual(['configurations.has', 'configurations.hasOfBot', 'configurations.list', 'configurations.listOfBot', 'configurations.save']);
});

test.each(routes.filter((route) => outsider(route.access as TokenAccess) !== undefined).map((route) => [route.id, route] as const))(
  '%s: a caller without access gets 403 or 404 for an invalid request; one with access gets the validation error',
  async (_id, route) => {
    const shutOut = outsider(route.access as TokenAccess)!;
    const botUuid = shutOut.bot === 'A1' ? org.botA1 : org.botA2;
    expect(await send(route, (shutOut.who === 'viewer' ? viewer : stranger.admin).token, botUuid)).toBe(shutOut.expected);
    const validates = Boolean(route.request?.body || route.request?.query || route.request?.multipart);
    if (validates) expect([400, 415, 422]).toContain(await send(route, org.admin.token, botUuid));
  },
);
