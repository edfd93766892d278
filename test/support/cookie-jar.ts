import { send, type ApiResponse } from './http-client';

/**
 * A browser's cookies over HTTP, for tests of the realm's pages without a browser: keeps what
 * Set-Cookie gives (by name and path; `Max-Age=0` removes), sends back the cookies whose path the
 * request's path falls under, and follows the API's own redirects as a browser does (a GET each).
 */
export class CookieJar {
  private readonly cookies = new Map<string, { name: string; value: string; path: string; line: string }>();

  /** Sends one request with the jar's cookies, redirects left to the caller. */
  async request(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    const cookie = this.headerFor(url);
    const response = await send(url, { ...init, redirect: 'manual', headers: { ...(init.headers ?? {}), ...(cookie ? { cookie } : {}) } });
    for (const line of response.headers.getSetCookie()) this.keep(line);
    return response;
  }

  /** Posts a form. */
  post(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.request(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
  }

  /**
   * GETs `url` and follows redirects while they stay on the API's origin; answers the last response and
   * its address (a redirect elsewhere, an application's callback, is answered, not followed).
   */
  async follow(url: string, init: { headers?: Record<string, string> } = {}, limit = 10): Promise<{ response: ApiResponse; url: string; location?: URL }> {
    let at = url;
    for (let hop = 0; hop < limit; hop++) {
      const response = await this.request(at, init);
      const target = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !target) return { response, url: at };
      const next = new URL(target, at);
      if (next.origin !== new URL(url).origin) return { response, url: at, location: next };
      at = next.toString();
    }
    throw new Error(`More than ${limit} redirects from ${url}`);
  }

  /** The value of a cookie the jar holds, by name (any path). */
  value(name: string): string | undefined {
    return [...this.cookies.values()].find((cookie) => cookie.name === name)?.value;
  }

  /** The Set-Cookie line the jar last kept for a cookie of this name. */
  line(name: string): string | undefined {
    return [...this.cookies.values()].find((cookie) => cookie.name === name)?.line;
  }

  /** Puts a cookie in the jar by hand (a stolen or forged one). */
  set(name: string, value: string, path: string): void {
    this.cookies.set(`${name}\u0000${path}`, { name, value, path, line: `${name}=${value}; Path=${path}` });
  }

  private keep(line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const name = pair.slice(0, pair.indexOf('='));
    const value = pair.slice(pair.indexOf('=') + 1);
    const path = attributes.find((attribute) => attribute.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
    const removed = attributes.some((attribute) => attribute.toLowerCase() === 'max-age=0') || value === '';
    if (removed) this.cookies.delete(`${name}\u0000${path}`);
    else this.cookies.set(`${name}\u0000${path}`, { name, value, path, line });
  }

  private headerFor(url: string): string {
    const { pathname } = new URL(url);
    return [...this.cookies.values()]
      .filter(({ path }) => pathname === path || pathname.startsWith(path.endsWith('/') ? path : `${path}/`))
      .map(({ name, value }) => `${name}=${value}`)
      .join('; ');
  }
}

/** A page's first form: its action (absolute) and its hidden fields. */
export function formOf(html: string, pageUrl: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) throw new Error(`no form in the page:\n${html}`);
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = match[2]!.replace(/&amp;/g, '&');
  return { action: new URL(action.replace(/&amp;/g, '&'), pageUrl).toString(), fields };
}

/**
 * Signs in on the realm's sign-in page that `url` (an authorization request, or the account page)
 * leads to; answers the form's answer and where it sends the browser (not followed).
 */
export async function signInThroughPage(jar: CookieJar, url: string, email: string, password: string): Promise<{ response: ApiResponse; location?: URL }> {
  const shown = await jar.follow(url);
  if (shown.response.status !== 200 || !shown.response.text.includes('name="password"')) {
    throw new Error(`Expected the sign-in page at ${shown.url}, got ${shown.response.status}`);
  }
  const form = formOf(shown.response.text, shown.url);
  const answer = await jar.post(form.action, { ...form.fields, username: email, password });
  const target = answer.headers.get('location');
  return { response: answer, ...(target ? { location: new URL(target, form.action) } : {}) };
}

/**
 * Signs in to a realm's account page as a browser does: the page leads to the realm's sign-in page,
 * whose answer comes back through `…/account/sso` to the page; answers the page then shown.
 */
export async function signInToAccount(jar: CookieJar, accountUrl: string, email: string, password: string): Promise<ApiResponse> {
  const { response, location } = await signInThroughPage(jar, accountUrl, email, password);
  if (!location) throw new Error(`The sign-in did not succeed: ${response.status}`);
  await jar.follow(location.toString());
  return jar.request(accountUrl);
}
