import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpointOf, issuerOf, OFFLINE_SCOPE, RealmSession, type TokenResponse } from '../../typescript/src/index';
import { note, UsageError } from './output';
import { newWebhookSecret, readProfile, writeProfile } from './profile';

export interface LoginFlags {
  profile: string;
  api?: string;
  realm?: string;
  clientId?: string;
  org?: string;
  device?: boolean;
  browser: boolean;
}

const SCOPE = OFFLINE_SCOPE;

/**
 * Signs in and keeps the offline token in the profile: the browser on the authorization code flow with
 * PKCE and a loopback redirect, or with `--device` the device authorization grant.
 */
export async function login(flags: LoginFlags): Promise<{ file: string; email?: string }> {
  const previous = readProfile(flags.profile);
  const apiUrl = (flags.api ?? process.env.APCTL_API_URL ?? previous?.apiUrl)?.replace(/\/$/, '');
  const realm = flags.realm ?? process.env.APCTL_REALM ?? previous?.realm;
  if (!apiUrl) throw new UsageError('Which API? Pass --api <URL> (e.g. https://api.example.com) or set APCTL_API_URL');
  if (!realm) throw new UsageError("Which organization? Pass --realm <name>, your organization's name, or set APCTL_REALM");
  if (!/^https?:\/\//.test(apiUrl)) throw new UsageError(`--api must be an http or https address, not ${apiUrl}`);
  const clientId = flags.clientId ?? process.env.APCTL_CLIENT_ID ?? previous?.clientId ?? (await publishedClientId(apiUrl));
  const session = new RealmSession({ apiUrl, realm, clientId });
  const tokens = flags.device ? await viaDevice(session) : await viaBrowser(session, apiUrl, realm, clientId, flags.browser);
  if (!tokens.refresh_token) throw new UsageError('The realm answered no offline token: sign in again');
  const email = await emailOf(session);
  const file = writeProfile(flags.profile, {
    apiUrl,
    realm,
    clientId,
    offlineToken: tokens.refresh_token,
    org: flags.org?.toLowerCase() ?? (await session.organizationId()),
    email,
    webhookSecret: previous?.webhookSecret ?? newWebhookSecret(),
    listenPositions: previous?.realm === realm ? previous.listenPositions : undefined,
  });
  return { file, email };
}

async function emailOf(session: RealmSession): Promise<string | undefined> {
  const claims = await session.claims();
  return typeof claims.email === 'string' ? claims.email : undefined;
}

async function viaDevice(session: RealmSession): Promise<TokenResponse> {
  return session.signInWithDevice((started) => {
    note(`To sign in, open ${started.verification_uri} and enter the code ${started.user_code}`);
    if (started.verification_uri_complete) note(`(or open ${started.verification_uri_complete})`);
    note('Waiting for the approval…');
  });
}

/** The authorization code flow: a one-request server on 127.0.0.1 receives the browser's redirect. */
async function viaBrowser(session: RealmSession, apiUrl: string, realm: string, clientId: string, openBrowser: boolean): Promise<TokenResponse> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  let redirectUri = '';
  const code = await new Promise<string>((resolve, reject) => {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') return void response.writeHead(404).end();
      const answer = (status: number, text: string) => {
        response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(`<!doctype html><meta charset="utf-8"><title>apctl</title><p>${text}</p>`);
      };
      const finish = (status: number, text: string) => {
        answer(status, text);
        server.close();
      };
      // An answer to another sign-in (a forged or stale link) is refused, and this one goes on waiting.
      if (url.searchParams.get('state') !== state) return answer(400, 'This sign-in is not the one apctl started: finish the sign-in apctl opened, or run apctl login again.');
      // RFC 9207: an answer naming another issuer comes from another server (a mix-up): refused.
      const iss = url.searchParams.get('iss');
      if (iss !== null && iss !== issuerOf(apiUrl, realm)) {
        finish(400, 'The sign-in answer came from another server: see the terminal.');
        return reject(new UsageError(`The sign-in answer names the issuer ${iss}, not ${issuerOf(apiUrl, realm)}: nothing is stored. Run apctl login again, and check --api and --realm`));
      }
      const error = url.searchParams.get('error');
      if (error) {
        finish(400, 'The sign-in did not succeed: see the terminal.');
        return reject(new UsageError(`The sign-in did not succeed: ${url.searchParams.get('error_description') ?? error}`));
      }
      finish(200, 'Signed in. You can close this tab and go back to the terminal.');
      resolve(url.searchParams.get('code') ?? '');
    });
    server.listen(0, '127.0.0.1', () => {
      redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
      const address = new URL(endpointOf(apiUrl, realm, 'auth'));
      const query = { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: SCOPE, state, code_challenge: challenge, code_challenge_method: 'S256' };
      for (const [name, value] of Object.entries(query)) address.searchParams.set(name, value);
      note(`Opening the browser to sign in. If it does not open, visit:\n  ${address}`);
      if (openBrowser) open(address.toString());
    });
  });
  return session.signInWithCode(code, verifier, redirectUri);
}

function open(url: string): void {
  const [command, ...args] =
    process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '""', url] : ['xdg-open', url];
  try {
    const child = spawn(command!, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The address is printed: the person opens it by hand.
  }
}

/**
 * The console's client id, which the API reference page carries (it signs in as that client); an
 * operator can give it instead with --client-id or APCTL_CLIENT_ID.
 */
async function publishedClientId(apiUrl: string): Promise<string> {
  const page = await fetch(`${apiUrl}/docs`, { headers: { accept: 'text/html' } }).catch(() => undefined);
  const id = page?.ok ? /data-client-id="([^"]+)"/.exec(await page.text())?.[1] : undefined;
  if (!id) throw new UsageError(`Could not find the client id at ${apiUrl}: pass --client-id <id> (the operator gives it) or check --api`);
  return id;
}
