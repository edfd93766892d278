import { cookieValue, laxCookie, realmCookieScope, strictCookie } from '../../shared/edge/http/cookies';

describe("the realm's cookies", () => {
  test('live under the realm\'s path, and are Secure wherever the issuer is https', () => {
    expect(realmCookieScope('https://api.example.com/auth/realms/acme')).toEqual({ path: '/auth/realms/acme/', secure: true });
    expect(realmCookieScope('https://id.example.com/prod/auth/realms/acme')).toEqual({ path: '/prod/auth/realms/acme/', secure: true });
    expect(realmCookieScope('http://127.0.0.1:3000/auth/realms/acme')).toEqual({ path: '/auth/realms/acme/', secure: false });
  });

  test('a realm session cookie is HttpOnly and SameSite=Lax, with Secure on https; ending it removes it', () => {
    const scope = realmCookieScope('https://api.example.com/auth/realms/acme');
    expect(laxCookie('REALM_SESSION', 'id.secret', { ...scope, maxAgeSeconds: 36000 })).toBe('REALM_SESSION=id.secret; Path=/auth/realms/acme/; HttpOnly; SameSite=Lax; Secure; Max-Age=36000');
    expect(laxCookie('REALM_SESSION', undefined, { ...scope, maxAgeSeconds: 36000 })).toBe('REALM_SESSION=; Path=/auth/realms/acme/; HttpOnly; SameSite=Lax; Secure; Max-Age=0');
    expect(strictCookie('ACCOUNT_SESSION', 'a.b', { path: '/auth/realms/acme/account', secure: false, maxAgeSeconds: 60 })).toBe('ACCOUNT_SESSION=a.b; Path=/auth/realms/acme/account; HttpOnly; SameSite=Strict; Max-Age=60');
  });

  test('a request cookie is read by its exact name', () => {
    expect(cookieValue(['REALM_SESSION_X=1', ' REALM_SESSION = a.b ', 'other=2'], 'REALM_SESSION')).toBe('a.b');
    expect(cookieValue(['REALM=1'], 'REALM_SESSION')).toBeUndefined();
  });
});
