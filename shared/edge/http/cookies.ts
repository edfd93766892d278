/** Cookies as payload 2.0 carries them: the request's `cookies` (one `name=value` each), and Set-Cookie values. */

/** The value of one cookie of the request's cookies. */
export function cookieValue(cookies: string[], name: string): string | undefined {
  for (const part of cookies) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Where a realm's cookies live: the path of its issuer (`…/realms/{realm}`) with a trailing slash, so
 * that every address of the realm, and no other realm's, receives them; `Secure` when the issuer is
 * served over https (the local stack's http issuer cannot store a secure cookie).
 */
export function realmCookieScope(issuer: string): { path: string; secure: boolean } {
  const url = new URL(issuer);
  return { path: `${url.pathname.replace(/\/$/, '')}/`, secure: url.protocol === 'https:' };
}

/**
 * A Set-Cookie value (or, with no value, one that removes the cookie) that only `path` receives, never
 * a script, never another site's request.
 */
export function strictCookie(name: string, value: string | undefined, options: { path: string; secure: boolean; maxAgeSeconds: number }): string {
  return cookie(name, value, 'Strict', options);
}

/**
 * As `strictCookie`, but also sent when another site sends the browser here by a top-level GET: for what
 * must come back with a redirect from another site (a sign-in through an identity provider).
 */
export function laxCookie(name: string, value: string | undefined, options: { path: string; secure: boolean; maxAgeSeconds: number }): string {
  return cookie(name, value, 'Lax', options);
}

function cookie(name: string, value: string | undefined, sameSite: 'Strict' | 'Lax', options: { path: string; secure: boolean; maxAgeSeconds: number }): string {
  const attributes = [`Path=${options.path}`, 'HttpOnly', `SameSite=${sameSite}`, ...(options.secure ? ['Secure'] : [])];
  return value === undefined
    ? [`${name}=`, ...attributes, 'Max-Age=0'].join('; ')
    : [`${name}=${value}`, ...attributes, `Max-Age=${options.maxAgeSeconds}`].join('; ');
}
