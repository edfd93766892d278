import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, createApiClient, ok, retryAfterMs, RealmSession } from '../src/index';

/**
 * The client's retries against a real HTTP server on 127.0.0.1 that answers from a script: what each
 * attempt carried (method, Idempotency-Key, token) and when it came.
 */

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Reply = { status: number; headers?: Record<string, string>; body?: unknown };

let server: Server;
let baseUrl: string;
let seen: Seen[];
let script: Reply[];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
      const reply = script.shift() ?? { status: 200, body: {} };
      response.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}`, ...reply.headers });
      response.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  seen = [];
  script = [];
});

const org = '0b0b0b0b-0000-4000-8000-000000000001';
const usersPath = '/user-management/org/{orgUUID}/users' as const;
const errorBody = (status: number, errorCode: string) => ({ timestamp: 1, errorCode, errorType: status >= 500 ? 'API_ERROR' : 'USER_ERROR', message: `${errorCode} happened`, path: '/x' });
const fast = { baseDelayMs: 10, maxDelayMs: 5000 };
const user = { name: 'Ana', email: 'ana@example.com', role: 'VIEWER' as const, permissions: [] };

describe('retries', () => {
  test('a 429 with Retry-After is sent again after that many seconds, with the same Idempotency-Key on the write', async () => {
    script = [{ status: 429, headers: { 'retry-after': '1' }, body: errorBody(429, 'RATE_LIMITED') }, { status: 200, body: { uuid: 'u1' } }];
    const api = createApiClient({ apiUrl: baseUrl, auth: 'token-1', retry: fast });

    const created = await ok(api.POST(usersPath, { params: { path: { orgUUID: org } }, body: user }));

    expect(created).toEqual({ uuid: 'u1' });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(seen[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]!.headers['idempotency-key']).toBe(seen[0]!.headers['idempotency-key']);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(seen[1]!.headers.authorization).toBe('Bearer token-1');
  });

  test('an Idempotency-Key the caller chose is kept on every attempt', async () => {
    script = [{ status: 503, headers: { 'retry-after': '0' }, body: errorBody(503, 'SERVICE_BUSY') }, { status: 200, body: { uuid: 'u2' } }];
    const api = createApiClient({ apiUrl: baseUrl, retry: fast });

    await ok(api.POST(usersPath, { params: { path: { orgUUID: org }, header: { 'Idempotency-Key': 'my-key-1' } }, body: user }));

    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual(['my-key-1', 'my-key-1']);
  });

  test('5xx answers are retried with back-off up to the attempts allowed, then the last error is thrown carrying the API body', async () => {
    script = [500, 502, 503].map((status) => ({ status, body: errorBody(status, 'INTERNAL') }));
    const api = createApiClient({ apiUrl: baseUrl, retry: { ...fast, attempts: 3 } });

    const failure = await ok(api.GET(usersPath, { params: { path: { orgUUID: org } } })).catch((error: unknown) => error);

    expect(seen).toHaveLength(3);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 503, code: 'INTERNAL', requestId: 'req-3', message: 'INTERNAL happened' });
    expect(seen.every((request) => request.headers['idempotency-key'] === undefined)).toBe(true);
  });

  test('a 4xx other than 429 is not retried, and its 422 details are on the error', async () => {
    script = [{ status: 422, body: { ...errorBody(422, 'VALIDATION_FAILED'), details: [{ fieldName: 'email', code: 'FIELD_INVALID', message: 'bad e-mail' }] } }];
    const api = createApiClient({ apiUrl: baseUrl, retry: fast });

    const failure = (await ok(api.POST(usersPath, { params: { path: { orgUUID: org } }, body: user })).catch((error: unknown) => error)) as ApiError;

    expect(seen).toHaveLength(1);
    expect(failure.code).toBe('VALIDATION_FAILED');
    expect(failure.body?.details).toEqual([{ fieldName: 'email', code: 'FIELD_INVALID', message: 'bad e-mail' }]);
  });

  test('a Retry-After longer than the policy allows is not waited for: the 429 is answered at once', async () => {
    script = [{ status: 429, headers: { 'retry-after': '3600' }, body: errorBody(429, 'RATE_LIMITED') }];
    const api = createApiClient({ apiUrl: baseUrl, retry: fast });

    const { response } = await api.GET(usersPath, { params: { path: { orgUUID: org } } });

    expect(response.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  test('Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');

    expect(retryAfterMs('Tue, 01 Dec 2026 10:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});

describe('tokens', () => {
  const tokenReply = (access: string, expiresIn: number): Reply => ({
    status: 200,
    body: { access_token: access, expires_in: expiresIn, refresh_expires_in: 0, refresh_token: 'offline-1', token_type: 'Bearer' },
  });

  test('an offline token is exchanged once, its access token reused while valid and refreshed before it expires', async () => {
    const session = RealmSession.fromOfflineToken({ apiUrl: baseUrl, realm: 'acme', clientId: 'console' }, 'offline-1');
    const api = createApiClient({ apiUrl: baseUrl, auth: session, retry: fast });
    script = [tokenReply('access-1', 300), { status: 200, body: {} }, { status: 200, body: {} }];

    await api.GET(usersPath, { params: { path: { orgUUID: org } } });
    await api.GET(usersPath, { params: { path: { orgUUID: org } } });

    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /auth/realms/acme/protocol/openid-connect/token',
      `GET /user-management/org/${org}/users`,
      `GET /user-management/org/${org}/users`,
    ]);
    expect(new URLSearchParams(seen[0]!.body).get('grant_type')).toBe('refresh_token');
    expect(new URLSearchParams(seen[0]!.body).get('client_id')).toBe('console');
    expect(seen[2]!.headers.authorization).toBe('Bearer access-1');

    // An access token with less than 30 seconds left is refreshed before the call.
    seen = [];
    const shortLived = RealmSession.fromOfflineToken({ apiUrl: baseUrl, realm: 'acme', clientId: 'console' }, 'offline-1');
    const api2 = createApiClient({ apiUrl: baseUrl, auth: shortLived, retry: fast });
    script = [tokenReply('access-short', 20), { status: 200, body: {} }, tokenReply('access-new', 300), { status: 200, body: {} }];
    await api2.GET(usersPath, { params: { path: { orgUUID: org } } });
    await api2.GET(usersPath, { params: { path: { orgUUID: org } } });

    expect(seen.filter((request) => request.url.endsWith('/token'))).toHaveLength(2);
    expect(seen[3]!.headers.authorization).toBe('Bearer access-new');
  });

  test('a 401 is answered by one refresh and the call sent again', async () => {
    const session = RealmSession.fromOfflineToken({ apiUrl: baseUrl, realm: 'acme', clientId: 'console' }, 'offline-1');
    const api = createApiClient({ apiUrl: baseUrl, auth: session, retry: fast });
    script = [tokenReply('access-1', 300), { status: 401, body: errorBody(401, 'UNAUTHENTICATED') }, tokenReply('access-2', 300), { status: 200, body: { ok: true } }];

    const answer = await ok(api.GET(usersPath, { params: { path: { orgUUID: org } } }));

    expect(answer).toEqual({ ok: true });
    expect(seen[3]!.headers.authorization).toBe('Bearer access-2');
  });

  test('the password grant signs in (with offline_access when asked) and its refresh token renews the access token', async () => {
    const session = new RealmSession({ apiUrl: baseUrl, realm: 'acme', clientId: 'console' });
    const api = createApiClient({ apiUrl: baseUrl, auth: session, retry: fast });
    script = [tokenReply('access-short', 10), tokenReply('access-renewed', 300), { status: 200, body: {} }];

    const tokens = await session.signInWithPassword('ana@acme.example', 'Ana-Password-1', { offline: true });
    await api.GET(usersPath, { params: { path: { orgUUID: org } } });

    const signIn = new URLSearchParams(seen[0]!.body);
    const renewal = new URLSearchParams(seen[1]!.body);
    expect(tokens.access_token).toBe('access-short');
    expect(Object.fromEntries(signIn)).toEqual({ client_id: 'console', grant_type: 'password', username: 'ana@acme.example', password: 'Ana-Password-1', scope: 'openid organization offline_access' });
    expect(Object.fromEntries(renewal)).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'offline-1' });
    expect(seen[2]!.headers.authorization).toBe('Bearer access-renewed');
  });

  test('the device grant asks for the offline scopes and polls through authorization_pending until the tokens come', async () => {
    const session = new RealmSession({ apiUrl: baseUrl, realm: 'acme', clientId: 'console' });
    script = [
      { status: 200, body: { device_code: 'dc', user_code: 'ABCD-EFGH', verification_uri: `${baseUrl}/device`, expires_in: 60, interval: 0 } },
      { status: 400, body: { error: 'authorization_pending' } },
      tokenReply('access-device', 300),
    ];
    const shown: string[] = [];

    const tokens = await session.signInWithDevice((started) => shown.push(started.user_code));

    expect(shown).toEqual(['ABCD-EFGH']);
    expect(tokens.access_token).toBe('access-device');
    expect(session.refreshToken).toBe('offline-1');
    expect(new URLSearchParams(seen[0]!.body).get('scope')).toBe('openid organization offline_access');
    expect(new URLSearchParams(seen[2]!.body).get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:device_code');
  });
});
