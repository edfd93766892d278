import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileRoutes, matchRoute } from '../../infra/local/route-match';
import { checkHandlers, createFunction, type RouteHandler } from '../../shared/edge/http/handler-factory';
import { defaultSubpaths, resolveRoutes, resourceGroups, routePath, routesOfGroup } from '../../shared/edge/api/routes';

const routes = resolveRoutes(defaultSubpaths);
const compiled = () => compileRoutes(routes);

describe('the route table', () => {
  test('has unique ids and unique route keys', () => {
    expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
    expect(new Set(routes.map((r) => r.routeKey)).size).toBe(routes.length);
  });

  test('puts every management route behind a user token and the subpath of its area (the SCIM endpoints behind a SCIM token)', () => {
    for (const route of routes.filter((r) => r.area !== 'auth' && r.area !== 'root')) {
      const scimEndpoint = route.group === 'scim' && route.path.includes('/scim/v2/');
      expect({ id: route.id, authenticated: route.authenticated, userToken: typeof route.access === 'object', scim: route.access === 'scim' }).toEqual({
        id: route.id,
        authenticated: !scimEndpoint,
        userToken: !scimEndpoint,
        scim: scimEndpoint,
      });
      expect(route.fullPath.startsWith(`/${route.area === 'user' ? defaultSubpaths.user : defaultSubpaths.generative}/`)).toBe(true);
    }
  });

  test('has at the root only the public API reference: / (leading to it), /openapi.json, /docs and its files', () => {
    const root = routes.filter((r) => r.area === 'root');
    expect(root.map((r) => `${r.routeKey} ${r.group} ${r.authenticated}`)).toEqual([
      'GET / docs false',
      'GET /openapi.json docs false',
      'GET /docs docs false',
      'GET /docs/{asset} docs false',
    ]);
    expect(resolveRoutes({ generative: 'gen', user: 'people' }).filter((r) => r.area === 'root').map((r) => r.fullPath)).toEqual(root.map((r) => r.fullPath));
  });

  test('follows configured subpaths', () => {
    const custom = resolveRoutes({ generative: 'gen', user: 'people' });
    expect(custom.find((r) => r.id === 'users.identityProvider')!.fullPath).toBe('/people/org/{orgUUID}/users/identity-provider');
  });

  test('refuses a subpath that is not a single path segment', () => {
    expect(() => resolveRoutes({ generative: 'a/b', user: 'users' })).toThrow(/Subpath/);
  });

  test('fills the path parameters of a route under the configured subpath', () => {
    const path = routePath('bulk.job', { orgUUID: 'o-1', jobId: 'j 2' }, { generative: 'gen', user: 'people' });

    expect(path).toBe('/people/org/o-1/users/bulk-jobs/j%202');
  });

  test('refuses to fill an unknown route or one missing a parameter', () => {
    expect(() => routePath('bulk.nothing', {}, defaultSubpaths)).toThrow(/No route bulk.nothing/);
    expect(() => routePath('bulk.job', { orgUUID: 'o-1' }, defaultSubpaths)).toThrow(/jobId/);
  });
});

describe('each function router agrees with the route table', () => {
  test('there is one function per resource group (functions/common is what they share)', () => {
    const folders = readdirSync(join(__dirname, '..', '..', 'functions')).filter((name) => name !== 'common');
    expect(folders.sort()).toEqual([...resourceGroups].sort());
  });

  const httpGroups = resourceGroups.filter((group) => routesOfGroup(routes, group).length > 0);

  test('only bulk-worker, events and mail have no route: their triggers are the bulk bucket, the table stream and the mail queue, and they export plain handlers', async () => {
    expect(resourceGroups.filter((group) => !httpGroups.includes(group))).toEqual(['bulk-worker', 'publisher', 'mail']);
    for (const group of ['bulk-worker', 'publisher', 'mail']) {
      const worker = (await import(`../../functions/${group}/handler`)) as Record<string, unknown>;
      expect(typeof worker.handler).toBe('function');
      expect(worker.handlers).toBeUndefined();
    }
  });

  test.each(httpGroups)('%s binds exactly its routes, with the same authentication', async (group) => {
    const module = (await import(`../../functions/${group}/handler`)) as { handlers: Record<string, RouteHandler> };
    expect(() => checkHandlers(routesOfGroup(routes, group), module.handlers)).not.toThrow();
    expect(Object.keys(module.handlers).sort()).toEqual(routesOfGroup(routes, group).map((r) => r.id).sort());
  });

  test('a handler map that misses or adds a route is refused', () => {
    const [first] = routesOfGroup(routes, 'auth');
    expect(() => checkHandlers(routesOfGroup(routes, 'auth'), {})).toThrow(/no handler/);
    const extra = { [first!.id]: { authenticated: false, build: () => undefined } } as unknown as Record<string, RouteHandler>;
    expect(() => checkHandlers([], extra)).toThrow(/has no route/);
  });

  test("a function bound to another group's operation is refused at cold start", async () => {
    const users = (await import('../../functions/users/handler')) as { handlers: Record<string, RouteHandler> };
    expect(() => createFunction('agents', users.handlers)).toThrow(/The agents function is bound to other groups' operations: users\./);
    expect(() => createFunction('users', users.handlers)).not.toThrow();
  });
});

describe('the local gateway agrees with the route table', () => {
  test.each(routes.map((r) => [r.routeKey, r] as const))('%s', (_key, route) => {
    const concrete = route.fullPath.replace(/\{[^}]+\}/g, 'x1');
    expect(matchRoute(compiled(), route.method, concrete)?.route.id).toBe(route.id);
  });

  test('an unknown path or method matches nothing (it goes to $default)', () => {
    expect(matchRoute(compiled(), 'GET', '/nowhere')).toBeUndefined();
    expect(matchRoute(compiled(), 'DELETE', routes[0]!.fullPath)).toBeUndefined();
  });
});
