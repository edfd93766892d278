import { stackApiClient, type ApiClient } from '../support/api-client';
import { freshBot, type FreshBot } from '../support/bot-helpers';
import type { components } from '../../clients/typescript/src/generated/api-types';
import { seededAdminToken } from '../support/http-client';
import { unique } from '../support/stack';
import { freshOrganization, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * The API through a client generated from its OpenAPI document (openapi-typescript types,
 * openapi-fetch): paths, parameters, bodies and answers below are typed by the document alone, and
 * every answer is also checked against it at run time.
 */

type Schemas = components['schemas'];
type User = Schemas['User'];

const agentPath = '/generative/org/{orgUUID}/env/{envUUID}/bot/{botUUID}/agents/{agentUUID}' as const;

/** The standard error body (docs/api/README.md#choices-that-apply-everywhere), as opposed to API Gateway's own `{ message }`. */
const isStandardError = <E extends object>(error: E): error is Extract<E, { errorCode: string }> => 'errorCode' in error;

/** The 422 body, whose `details` name the fields. */
const isValidationError = <E extends object>(error: E): error is Extract<E, { details?: unknown[] }> =>
  isStandardError(error) && error.errorCode === 'VALIDATION_FAILED';

describe('a client generated from the OpenAPI document', () => {
  let org: TestOrg;
  let users: ApiClient;

  beforeAll(async () => {
    org = await freshOrganization({ adminName: 'Org Admin' });
    users = stackApiClient(org.admin.token, { requestId: `generated-client-${unique()}` });
  });

  const viewerBody = (name: string) => ({
    name,
    email: uniqueEmail('typed'),
    role: 'VIEWER' as const,
    permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }],
  });

  test('GET users/identity-provider answers the caller as a typed User', async () => {
    const { data, error, response } = await users.GET('/user-management/org/{orgUUID}/users/identity-provider', {
      params: { path: { orgUUID: org.orgUuid } },
    });

    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^generated-client-/);
    const me: User | undefined = data;
    expect(me).toMatchObject({ uuid: org.admin.uuid, email: org.admin.email, role: 'ADMIN', admin: true, orgUUID: org.orgUuid });
  });

  test('POST /users creates a user that GET /users/{userId} then reads', async () => {
    const body = viewerBody('Typed Creation');

    const created = await users.POST('/user-management/org/{orgUUID}/users', { params: { path: { orgUUID: org.orgUuid } }, body });
    if (!created.data) throw new Error(`Create answered ${created.response.status}: ${JSON.stringify(created.error)}`);
    const read = await users.GET('/user-management/org/{orgUUID}/users/{userId}', {
      params: { path: { orgUUID: org.orgUuid, userId: created.data.uuid } },
    });

    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ name: body.name, email: body.email, role: 'VIEWER', status: 'ACTIVE', permissions: body.permissions });
    expect(read.response.status).toBe(200);
    expect(read.data).toEqual(created.data);
  });

  test('GET /users takes typed page, linesPerPage and orderBy and answers a typed page', async () => {
    const own = await freshOrganization({ adminName: 'Zed Admin' });
    const client = stackApiClient(own.admin.token);
    const orgUUID = own.orgUuid;
    for (const name of ['Cleo Listed', 'Abel Listed', 'Bruno Listed']) {
      const body = { ...viewerBody(name), permissions: [{ environmentUuid: own.envA, botUuid: own.botA1 }] };
      const { error } = await client.POST('/user-management/org/{orgUUID}/users', { params: { path: { orgUUID } }, body });
      expect(error).toBeUndefined();
    }

    const { data, error } = await client.GET('/user-management/org/{orgUUID}/users', {
      params: { path: { orgUUID }, query: { page: 1, linesPerPage: 2, orderBy: 'name', direction: 'ASC' } },
    });

    expect(error).toBeUndefined();
    expect(data?.content.map((user) => user.name)).toEqual(['Cleo Listed', 'Zed Admin']);
    expect(data).toMatchObject({ number: 1, size: 2, totalElements: 4, totalPages: 2, first: false, last: true });
  });

  test('a 422 is read through the typed error with the fields it names', async () => {
    const { data, error, response } = await users.POST('/user-management/org/{orgUUID}/users', {
      params: { path: { orgUUID: org.orgUuid } },
      body: { ...viewerBody('Bad Address'), email: 'not-an-e-mail' },
    });

    expect(data).toBeUndefined();
    expect(response.status).toBe(422);
    if (!error || !isValidationError(error)) throw new Error(`Not a validation error: ${JSON.stringify(error)}`);
    const fields: string[] | undefined = error.details?.map((detail) => detail.fieldName);
    expect(error).toMatchObject({ errorCode: 'VALIDATION_FAILED', errorType: 'USER_ERROR', path: new URL(response.url).pathname });
    expect(fields).toEqual(['email']);
  });

  describe('agents', () => {
    let bot: FreshBot;
    let admin: ApiClient;

    beforeAll(async () => {
      bot = await freshBot();
      admin = stackApiClient(seededAdminToken());
    });

    const agentParams = (agentUUID: string) => ({ path: { orgUUID: bot.orgUuid, envUUID: bot.envUuid, botUUID: bot.botUuid, agentUUID } });

    test('create, read with its ETag, update with If-Match, and a stale If-Match is a typed 409', async () => {
      const body = { role: `Typed agent ${unique()}`, goal: 'Answer typed questions', persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false };

      const created = await admin.POST('/generative/org/{orgUUID}/env/{envUUID}/bot/{botUUID}/agents', {
        params: { path: { orgUUID: bot.orgUuid, envUUID: bot.envUuid, botUUID: bot.botUuid } },
        body,
      });
      if (!created.data) throw new Error(`Create answered ${created.response.status}: ${JSON.stringify(created.error)}`);
      const agentUuid = created.data.uuid;
      const read = await admin.GET(agentPath, { params: agentParams(agentUuid) });
      const etag = read.response.headers.get('etag');
      if (!read.data || !etag) throw new Error(`Read answered ${read.response.status} with ETag ${etag}`);
      const updated = await admin.PUT(agentPath, {
        params: { ...agentParams(agentUuid), header: { 'If-Match': etag } },
        body: { ...body, goal: 'Answer typed questions, updated' },
      });
      const stale = await admin.PUT(agentPath, {
        params: { ...agentParams(agentUuid), header: { 'If-Match': etag } },
        body: { ...body, goal: 'A lost update' },
      });

      expect(created.response.status).toBe(201);
      expect(read.data).toEqual(created.data);
      expect(etag).toBe(created.response.headers.get('etag'));
      expect(updated.response.status).toBe(200);
      expect(updated.data?.goal).toBe('Answer typed questions, updated');
      expect(updated.response.headers.get('etag')).not.toBe(etag);
      expect(stale.response.status).toBe(409);
      expect(stale.data).toBeUndefined();
      if (!stale.error || !isStandardError(stale.error)) throw new Error(`Not the standard error body: ${JSON.stringify(stale.error)}`);
      const conflict: Schemas['ErrorBody'] = stale.error;
      expect(conflict).toEqual({
        timestamp: expect.any(Number),
        errorCode: 'VERSION_CONFLICT',
        errorType: 'USER_ERROR',
        message: expect.any(String),
        path: new URL(stale.response.url).pathname,
      });
      const after = await admin.GET(agentPath, { params: agentParams(agentUuid) });
      expect(after.data?.goal).toBe('Answer typed questions, updated');
    });
  });
});

/**
 * Never called: what the generated types refuse, checked by `tsc` (each line must be an error, or
 * `@ts-expect-error` itself fails the typecheck).
 */
export function _refusedByTheTypes(client: ApiClient): void {
  // @ts-expect-error a path the document does not have
  void client.GET('/user-management/org/{orgUUID}/no-such-path', { params: { path: { orgUUID: 'x' } } });
  // @ts-expect-error the path parameter userId is required
  void client.GET('/user-management/org/{orgUUID}/users/{userId}', { params: { path: { orgUUID: 'x' } } });
  // @ts-expect-error orderBy is one of the documented columns
  void client.GET('/user-management/org/{orgUUID}/users', { params: { path: { orgUUID: 'x' }, query: { orderBy: 'updatedAt' } } });
  void client.POST('/generative/org/{orgUUID}/env/{envUUID}/bot/{botUUID}/agents', {
    params: { path: { orgUUID: 'x', envUUID: 'y', botUUID: 'z' } },
    // @ts-expect-error an agent needs a goal
    body: { role: 'r', persona: { uuid: 'p' }, inheritFromSupervisor: false },
  });
}
