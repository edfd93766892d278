import { isAllowedRedirect, isAllowedWebOrigin, redirectWith } from '../../shared/app/auth/redirect-uris';

/** The deployment's own addresses (CDK context `authRedirectUris`), in a configuration of this test's own. */
const original = process.env;
beforeAll(() => {
  process.env = { ...original, TOKEN_ISSUER: 'https://api.example.org/auth', AUTH_REDIRECT_URIS: 'https://console.example.org/callback https://admin.example.org:8443/auth/done' };
});
afterAll(() => {
  process.env = original;
});

describe('the web origins that read the token endpoint\'s answers', () => {
  test.each([
    ['http://localhost:5173', true],
    ['http://127.0.0.1:8080', true],
    ['http://[::1]:3000', true],
    ['http://localhost', true],
    ['https://console.example.org', true],
    ['https://admin.example.org:8443', true],
    ['https://admin.example.org', false],
    ['http://console.example.org', false],
    ['https://console.example.org.evil.example', false],
    ['https://localhost:5173', false],
    ['https://console.example.org/callback', false],
    ['null', false],
    ['', false],
  ])('%s → %s', (origin, allowed) => {
    expect(isAllowedWebOrigin(origin)).toBe(allowed);
  });
});

test('the deployment\'s redirect URIs are allowed exactly', () => {
  expect(isAllowedRedirect('https://console.example.org/callback')).toBe(true);
  expect(isAllowedRedirect('https://console.example.org/callback/')).toBe(false);
  expect(isAllowedRedirect('https://console.example.org/other')).toBe(false);
  expect(isAllowedRedirect('https://api.example.org/docs/oauth2-redirect.html')).toBe(true);
});

test("a realm's own device verification callback, exactly, and only for a request of that realm", () => {
  const callback = 'https://api.example.org/auth/realms/acme/device/callback';
  expect(isAllowedRedirect(callback, 'acme')).toBe(true);
  expect(isAllowedRedirect(callback, 'ACME')).toBe(true);
  expect(isAllowedRedirect(callback, 'other')).toBe(false);
  expect(isAllowedRedirect(callback)).toBe(false);
  expect(isAllowedRedirect(`${callback}/x`, 'acme')).toBe(false);
  expect(isAllowedRedirect(`${callback}?next=x`, 'acme')).toBe(false);
});

test('an answer goes in the query, keeping the URI\'s own parameters, or in the fragment', () => {
  expect(redirectWith('https://console.example.org/callback?tenant=a', { code: 'c 1', state: 's', iss: undefined })).toBe('https://console.example.org/callback?tenant=a&code=c+1&state=s');
  expect(redirectWith('https://console.example.org/callback?tenant=a', { code: 'c 1', state: 's' }, 'fragment')).toBe('https://console.example.org/callback?tenant=a#code=c+1&state=s');
});
