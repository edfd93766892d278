import type * as OpenIdClient from 'openid-client';
import { stack } from './stack';

/**
 * The device authorization grant as its two parties drive it: openid-client on the device (its
 * functions unmodified), and a person's browser on the verification page, played over HTTP with a
 * cookie jar, each redirect followed by hand.
 */

// openid-client ships only ES modules: Node's own require loads it, outside jest's registry.
const load = process.getBuiltinModule('node:module').createRequire(__filename);
export const oidc = load('openid-client') as typeof OpenIdClient;

export const issuerOf = (realm: string) => `${stack().authUrl}/auth/realms/${realm}`;

/** openid-client's discovery of a realm; plain http is allowed only because the local stack listens on loopback. */
export function discover(realm: string): Promise<OpenIdClient.Configuration> {
  return oidc.discovery(new URL(issuerOf(realm)), stack().clientId, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
}

/** A browser's cookies for the stack's one origin (paths are the stack's business: every cookie goes). */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') } : {};
  }

  keep(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      if (attributes.some((attribute) => /^max-age=0$/i.test(attribute))) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1));
    }
    return response;
  }
}

/** A browser on the stack: same-origin requests, its cookies, redirects not followed. */
export class Browser {
  readonly jar = new CookieJar();

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.jar.keep(await fetch(url, { redirect: 'manual', headers: { accept: 'text/html', ...this.jar.header(), ...headers } }));
  }

  async post(url: string, fields: Record<string, string> | URLSearchParams | string, headers: Record<string, string> = {}): Promise<Response> {
    const origin = new URL(url).origin;
    return this.jar.keep(
      await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin, ...this.jar.header(), ...headers },
        body: typeof fields === 'string' ? fields : new URLSearchParams(fields),
      }),
    );
  }
}

/** A page's (first) form: its action (absolute), its hidden fields, and its text inputs' values. */
export function formOf(html: string, pageUrl: string): { action: string; fields: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) throw new Error(`no form in the page:\n${html}`);
  const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input (?:type="hidden" )?(?:id="[^"]*" )?name="([^"]+)"[^>]*? value="([^"]*)"/g)) fields[match[1]!] = unescape(match[2]!);
  return { action: new URL(unescape(action), pageUrl).toString(), fields };
}

/**
 * Signs in on the verification page with the user code typed as `typed`: the code's form, the realm's
 * sign-in page, back to the callback. Answers the consent page (its URL and HTML).
 */
export async function signInOnVerificationPage(browser: Browser, pageUrl: string, typed: string, user: { email: string; password: string }) {
  const callbackUrl = await signInForCallback(browser, pageUrl, typed, user);
  const consent = await browser.get(callbackUrl);
  return { url: callbackUrl, response: consent, html: await consent.text() };
}

/** As `signInOnVerificationPage`, up to the flow's answer: the callback's URL, not yet visited. */
export async function signInForCallback(browser: Browser, pageUrl: string, typed: string, user: { email: string; password: string }): Promise<string> {
  const page = await browser.get(pageUrl);
  expect(page.status).toBe(200);
  const codeForm = formOf(await page.text(), pageUrl);
  const toFlow = await browser.post(codeForm.action, { ...codeForm.fields, user_code: typed });
  expect(toFlow.status).toBe(303);
  const flowUrl = toFlow.headers.get('location')!;
  const signInPage = await browser.get(flowUrl);
  let back: Response;
  if (signInPage.status === 302) {
    back = signInPage; // a realm session signed the person in already
  } else {
    expect(signInPage.status).toBe(200);
    const signIn = formOf(await signInPage.text(), flowUrl);
    back = await browser.post(signIn.action, { ...signIn.fields, username: user.email, password: user.password });
    expect(back.status).toBe(303);
  }
  return back.headers.get('location')!;
}

/** Sends the consent page's form with a decision. */
export async function decide(browser: Browser, consent: { url: string; html: string }, decision: 'approve' | 'deny', headers: Record<string, string> = {}): Promise<Response> {
  const form = formOf(consent.html, consent.url);
  return browser.post(form.action, { ...form.fields, decision }, headers);
}

/** One poll of the token endpoint with a device code, as raw HTTP. */
export async function poll(realm: string, deviceCode: string, extra: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${issuerOf(realm)}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: stack().clientId, device_code: deviceCode, ...extra }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
