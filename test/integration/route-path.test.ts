import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { handler as usersHandler } from '../../functions/users/handler';
import { addClientPlugin, type ClientPlugin } from '../../shared/adapters/clients/client-options';
import { userSchemas } from '../../shared/domain/users/user.schemas';
import { createTestUser } from '../support/auth-helpers';
import { adminToken } from '../support/stack';

/**
 * An authenticated route's path is parsed once, at the head of its chain: the caller's batch, the
 * access check and validation read what that parse left on the context. Counted on the route's own
 * path schema, with the request run through the users function as Lambda runs it.
 */

const context = { awsRequestId: 'route-path-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

let dynamoCommands: string[] | undefined;
type Next = (args: { input: object }) => Promise<{ output: object }>;
const recorder: ClientPlugin = {
  applyToStack: (stack) =>
    (stack as unknown as { add(m: (next: Next, context: { commandName?: string }) => Next, o: object): void }).add(
      (next, commandContext) => async (args) => {
        dynamoCommands?.push((commandContext.commandName ?? '').replace(/Command$/, ''));
        return next(args);
      },
      { step: 'initialize', name: 'routePathRecorder' },
    ),
};
addClientPlugin(recorder);

function sampleEvent(route: string, values: Record<string, string>): APIGatewayProxyEventV2 {
  const source = readFileSync(join(__dirname, '..', '..', 'events', `${route}.json`), 'utf8');
  return JSON.parse(source.replace(/__([A-Z_]+)__/g, (name, key: string) => values[key] ?? name)) as APIGatewayProxyEventV2;
}

/** Runs one request through the users function; its answer, how often the route's path schema parsed, and the store calls it made. */
async function invoke(event: APIGatewayProxyEventV2): Promise<{ status: number; body: Record<string, unknown>; parses: number; calls: string[] }> {
  const schema = userSchemas().userPathSchema;
  const parses = [jest.spyOn(schema, 'safeParse'), jest.spyOn(schema, 'parse')];
  dynamoCommands = [];
  try {
    const result = await (usersHandler as unknown as Handler)(event, context);
    const body = result.body ? (JSON.parse(result.body) as Record<string, unknown>) : {};
    return { status: result.statusCode ?? 0, body, parses: parses.reduce((sum, spy) => sum + spy.mock.calls.length, 0), calls: dynamoCommands };
  } finally {
    dynamoCommands = undefined;
    for (const spy of parses) spy.mockRestore();
  }
}

let admin: { accessToken: string; orgUuid: string };

beforeAll(async () => {
  admin = await adminToken();
});

test('a valid path is parsed once, and the caller and the user it names come in one BatchGetItem', async () => {
  const other = await createTestUser();

  const { status, body, parses, calls } = await invoke(sampleEvent('users.get', { ORG_UUID: admin.orgUuid, USER_UUID: other.user.uuid, ACCESS_TOKEN: admin.accessToken }));

  expect(status).toBe(200);
  expect(body).toMatchObject({ uuid: other.user.uuid });
  expect(parses).toBe(1);
  expect(calls).toEqual(['BatchGetItem']);
});

test('a path in upper case is parsed once and read as the lower-case ids it names', async () => {
  const other = await createTestUser();

  const { status, body, parses } = await invoke(
    sampleEvent('users.get', { ORG_UUID: admin.orgUuid.toUpperCase(), USER_UUID: other.user.uuid.toUpperCase(), ACCESS_TOKEN: admin.accessToken }),
  );

  expect(status).toBe(200);
  expect(body).toMatchObject({ uuid: other.user.uuid });
  expect(parses).toBe(1);
});

test('a bad segment is parsed once, answered 422 naming it, after the caller was read in one BatchGetItem', async () => {
  const { status, body, parses, calls } = await invoke(sampleEvent('users.get', { ORG_UUID: admin.orgUuid, USER_UUID: 'x'.repeat(101), ACCESS_TOKEN: admin.accessToken }));

  expect(status).toBe(422);
  expect(body.details).toEqual([expect.objectContaining({ fieldName: 'userId', errorCode: 'FIELD_INVALID' })]);
  expect(parses).toBe(1);
  expect(calls).toEqual(['BatchGetItem']);
});
