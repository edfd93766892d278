import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { subpathsFromEnv } from '../../shared/config';
import { resolveRoutes } from '../../shared/routes';
import { adminToken, stack } from '../support/stack';

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

async function fill(text: string): Promise<APIGatewayProxyEventV2> {
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
  };
  if (text.includes('__ACCESS_TOKEN__')) values.__ACCESS_TOKEN__ = (await adminToken()).accessToken;
  if (text.includes('__SUPERVISOR_UUID__')) values.__SUPERVISOR_UUID__ = await firstUuid(values.__ACCESS_TOKEN__!, '/supervisors/default');
  if (text.includes('__AGENT_UUID__')) values.__AGENT_UUID__ = await firstUuid(values.__ACCESS_TOKEN__!, '/agents');
  return JSON.parse(text.replace(/__[A-Z_]+__/g, (name) => values[name] ?? name)) as APIGatewayProxyEventV2;
}

test('every route of the route table has a sample event', () => {
  expect(files.map((name) => name.replace(/\.json$/, '')).sort()).toEqual(routes.map((route) => route.id).sort());
});

describe.each(files)('events/%s', (file) => {
  test('replays through its handler with a 2xx answer', async () => {
    const event = await fill(readFileSync(join(eventsDir, file), 'utf8'));
    const route = routes.find((candidate) => candidate.routeKey === event.routeKey);
    expect(route).toBeDefined();
    const { handler } = (await import(`../../functions/${route!.group}/handler`)) as {
      handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
    };
    const result = await handler(event, context);
    expect(result.statusCode).toBeGreaterThanOrEqual(200);
    expect(result.statusCode).toBeLessThan(300);
    expect(result.headers?.['x-request-id']).toBe('sample-request-1');
  });
});
