import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler as authHandler } from '../../functions/auth/handler';
import { handler as usersHandler } from '../../functions/users/handler';
import { decodeJwt } from '../support/auth-helpers';
import { stack } from '../support/stack';
import { captureLogs } from '../support/capture-logs';

const context = { awsRequestId: 'logging-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

function event(method: string, path: string, headers: Record<string, string>, body?: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers,
    requestContext: { http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } } as never,
    isBase64Encoded: false,
    ...(body !== undefined ? { body } : {}),
  };
}

test('every log line carries the request id, and no line carries a password or a token', async () => {
  const org = stack().orgs[0]!;
  const tokenPath = `/auth/realms/${org.name}/protocol/openid-connect/token`;
  const form = (password: string) =>
    new URLSearchParams({ grant_type: 'password', client_id: stack().clientId, username: org.admin.email, password }).toString();
  const formHeaders = (id: string) => ({ 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': id });
  let accessToken = '';
  let refreshToken = '';

  const lines = await captureLogs(async () => {
    const ok = await authHandler(event('POST', tokenPath, formHeaders('log-ok'), form(org.admin.password)), context);
    const body = JSON.parse(ok.body!) as { access_token: string; refresh_token: string };
    accessToken = body.access_token;
    refreshToken = body.refresh_token;
    await authHandler(event('POST', tokenPath, formHeaders('log-wrong'), form('Wrong-Passw0rd!')), context);
    await usersHandler(
      event('GET', `/${stack().userSubpath}/org/${org.uuid}/users/identity-provider`, {
        authorization: `Bearer ${accessToken}`,
        'x-request-id': 'log-me',
      }),
      context,
    );
  });

  expect(lines.length).toBeGreaterThanOrEqual(3);
  const records = lines.map((line) => JSON.parse(line) as { requestId?: string });
  expect(records.map((r) => r.requestId).filter((id) => id === 'log-ok' || id === 'log-wrong' || id === 'log-me').length).toBe(records.length);
  expect(new Set(records.map((r) => r.requestId))).toEqual(new Set(['log-ok', 'log-wrong', 'log-me']));
  // The metric lines (EMF) carry the request id as metadata, so a metric can be traced to its request's logs.
  const emf = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((r) => '_aws' in r);
  expect(emf.map((r) => [r.requestId, r.service, r.TokensGranted ?? r.TokensRefused])).toEqual([
    ['log-ok', 'auth', 1],
    ['log-wrong', 'auth', 1],
  ]);
  expect(emf[1]).toHaveProperty('TokensRefused', 1);
  const all = lines.join('\n');
  expect(all).not.toContain(org.admin.password);
  expect(all).not.toContain('Wrong-Passw0rd!');
  expect(all).not.toContain(accessToken);
  expect(all).not.toContain(accessToken.split('.')[2]);
  // The refresh token's secret is its jti (the session keeps only the hash).
  expect(all).not.toContain(refreshToken);
  expect(all).not.toContain(refreshToken.split('.')[2]);
  expect(all).not.toContain(decodeJwt(refreshToken).payload.jti as string);
});
