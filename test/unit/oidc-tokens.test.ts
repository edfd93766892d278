import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grantedScope, issueAccessToken, issueIdToken, verifyAccessToken } from '../../shared/app/auth/access-token';
import { realmIssuer, realmOfIssuer } from '../../shared/app/auth/jwt';
import { issueRefreshToken, readRefreshToken } from '../../shared/app/auth/refresh-token';

// A file key, as on the local stack: signing and verifying need no AWS.
const keyPath = join(mkdtempSync(join(tmpdir(), 'oidc-tokens-')), 'key.json');
writeFileSync(keyPath, JSON.stringify(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })));
const clientId = '4j8k2l9m1n0p3q5r7s6t8u9v0w';
const base = 'https://abcdefghij.execute-api.ap-southeast-2.amazonaws.com/auth';
Object.assign(process.env, {
  TABLE_NAME: 'table',
  USER_POOL_ID: 'pool',
  USER_POOL_CLIENT_ID: clientId,
  SIGNING_KEY: `file:${keyPath}`,
  TOKEN_ISSUER: base,
});

const subject = {
  realm: 'acme',
  userUuid: '0b6f3a52-5d7e-4c1a-9a43-2f1d7c8e9b10',
  email: 'ana.lima@acme.example',
  name: 'Ana Lima',
  sessionId: 'vJC5q6ECNGM5MZ3ZboYHuQ',
  clientId,
  scope: 'openid profile email',
  authTime: 1795255200,
};
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
const secret = 'S'.repeat(43);
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

test('a realm issuer is TOKEN_ISSUER/realms/<realm>, and only such an issuer names a realm', () => {
  expect(realmIssuer('acme')).toBe(`${base}/realms/acme`);
  expect(realmOfIssuer(`${base}/realms/acme`)).toBe('acme');
  expect(realmOfIssuer(base)).toBeUndefined();
  expect(realmOfIssuer(`${base}/realms/Not A Realm`)).toBeUndefined();
  expect(realmOfIssuer('https://elsewhere.example/auth/realms/acme')).toBeUndefined();
});

test('the granted scope adds openid only when asked for', () => {
  expect(grantedScope(undefined)).toBe('profile email');
  expect(grantedScope('profile')).toBe('profile email');
  expect(grantedScope('openid email')).toBe('openid profile email');
  expect(grantedScope('openidx')).toBe('profile email');
});

test('an access token with a cloud-length issuer stays within 800 characters and verifies with its realm', async () => {
  const { token } = await issueAccessToken(subject);

  expect(token.length).toBeLessThanOrEqual(800);
  await expect(verifyAccessToken(token)).resolves.toMatchObject({ realm: 'acme', iss: `${base}/realms/acme`, aud: clientId, sid: subject.sessionId });
});

test('an ID token or a refresh token is not an access token', async () => {
  const idToken = await issueIdToken(subject);
  const refreshToken = await issueRefreshToken({ ...subject, secret, expiresAt: inAnHour() });

  expect(payloadOf(idToken)).toMatchObject({ typ: 'ID', aud: clientId, auth_time: subject.authTime, name: 'Ana Lima' });
  await expect(verifyAccessToken(idToken)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  await expect(verifyAccessToken(refreshToken)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
});

test('a refresh token reads back only on its own realm, for its own client', async () => {
  const token = await issueRefreshToken({ ...subject, secret, expiresAt: inAnHour() });

  await expect(readRefreshToken(token, 'acme', clientId)).resolves.toMatchObject({ sid: subject.sessionId, jti: secret, typ: 'Refresh' });
  await expect(readRefreshToken(token, 'globex', clientId)).resolves.toBeUndefined();
  await expect(readRefreshToken(token, 'acme', 'another-client')).resolves.toBeUndefined();
  await expect(readRefreshToken((await issueAccessToken(subject)).token, 'acme', clientId)).resolves.toBeUndefined();
});

test('an expired refresh token does not read back', async () => {
  const token = await issueRefreshToken({ ...subject, secret, expiresAt: Math.floor(Date.now() / 1000) - 60 });

  await expect(readRefreshToken(token, 'acme', clientId)).resolves.toBeUndefined();
});

describe('a token verified once is not checked again, but its expiry is', () => {
  afterEach(() => jest.restoreAllMocks());

  test('an access token verified while valid is refused as expired once past its exp', async () => {
    const { token, expiresIn } = await issueAccessToken(subject);
    await expect(verifyAccessToken(token)).resolves.toMatchObject({ sid: subject.sessionId });
    const now = Date.now();

    jest.spyOn(Date, 'now').mockReturnValue(now + (expiresIn + 1) * 1000);

    await expect(verifyAccessToken(token)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: expect.stringMatching(/expired/) });
  });

  test('a token altered after another was verified is still checked: its signature fails', async () => {
    const { token } = await issueAccessToken(subject);
    await expect(verifyAccessToken(token)).resolves.toBeDefined();
    const [header, payload] = token.split('.');
    const claims = { ...payloadOf(token), sub: '11111111-1111-4111-8111-111111111111' };
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${token.split('.')[2]}`;

    expect(payload).not.toBe(forged.split('.')[1]);
    await expect(verifyAccessToken(forged)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
