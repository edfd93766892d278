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
