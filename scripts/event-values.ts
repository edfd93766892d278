/**
 * The values an event needs beyond what its stack gives by itself, made through the stack's API as its
 * ADMIN (`npm run sam:event`, scripts/sam-event.ts): an access token, a supervisor or agent, a user of
 * its own, a bulk job, a SCIM token, an offline session, an identity provider.
 */
import { bulkCreateColumns } from '../shared/app/bulk/bulk.limits';
import type { Subpaths } from '../shared/edge/api/routes';
import { generatePassword } from '../shared/adapters/identity/password-policy';
import { UsageError } from '../infra/cli/command';
import { passwordGrant } from '../infra/stack-target';

/** Where an event's values come from: the stack's addresses and the placeholders it fills by itself. */
export interface EventStack {
  apiUrl: string;
  authUrl: string;
  subpaths: Subpaths;
  values: Record<string, string>;
}

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** The stack's API as its ADMIN. */
function client(stack: EventStack, values: Record<string, string>) {
  const call = async (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) => {
    const json = body !== undefined && !(body instanceof FormData);
    const response = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: json ? JSON.stringify(body) : (body as FormData) } : {}),
    });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response;
  };
  const userArea = (path: string) => `/${stack.subpaths.user}/org/${values.__ORG_UUID__}${path}`;
  const botArea = (path: string) =>
    `/${stack.subpaths.generative}/org/${values.__ORG_UUID__}/env/${values.__ENV_UUID__}/bot/${values.__BOT_UUID__}${path}`;
  return { call, userArea, botArea };
}

async function accessToken(stack: EventStack, values: Record<string, string>): Promise<string> {
  const response = await passwordGrant({ authUrl: stack.authUrl, clientId: values.__CLIENT_ID__! }, values.__REALM__!, values.__ADMIN_EMAIL__!, values.__ADMIN_PASSWORD__!);
  if (response.status !== 200) throw new Error(`The token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** An offline session of a user (a password grant with `scope=offline_access`): its id, the token response's `session_state`. */
async function offlineSession(stack: EventStack, values: Record<string, string>, username: string, password: string): Promise<string> {
  const response = await fetch(`${stack.authUrl}/auth/realms/${values.__REALM__}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: values.__CLIENT_ID__!, username, password, scope: 'offline_access' }),
  });
  if (response.status !== 200) throw new Error(`The token endpoint answered ${response.status} to the offline sign-in: ${await response.text()}`);
  return ((await response.json()) as { session_state: string }).session_state;
}

/** How long the SCIM token an event is filled with works: long enough to invoke the event, no longer. */
const SAMPLE_SCIM_TOKEN_MINUTES = 15;
/** The SCIM token of each stack and organization this process fills events for. */
const scimTokens = new Map<string, Promise<{ id: string; token: string }>>();

/** Values made through the API, each only when the event names it. */
export async function makeValues(id: string, needed: Set<string>, stack: EventStack, values: Record<string, string>): Promise<void> {
  const set = (name: string, make: () => string) => {
    if (needed.has(name) && values[name] === undefined) values[name] = make();
  };
  set('__NEW_EMAIL__', () => `sam-new-${unique()}@example.test`);
  set('__OTHER_NEW_EMAIL__', () => `sam-new-other-${unique()}@example.test`);
  // A receiver on the local stack's loopback (it allows http there); give an https one of your own for a deployed stack.
  if ((needed.has('__WEBHOOK_ID__') || needed.has('__DELIVERY_ID__')) && !values.__WEBHOOK_URL__) needed.add('__WEBHOOK_URL__');
  set('__WEBHOOK_URL__', () => 'http://127.0.0.1:9/sam-webhook');
  // An offline session is the user's own sign-in: the event's user is made here, whose password is known.
  if (needed.has('__OFFLINE_SESSION_ID__') && values.__OFFLINE_SESSION_ID__ === undefined) {
    if (values.__USER_UUID__ !== undefined) throw new UsageError('Give __OFFLINE_SESSION_ID__ with --set too: an offline session of __USER_UUID__ (its session_state)');
    needed.add('__USER_UUID__');
  }
  set('__NEW_IDP_ALIAS__', () => `sam-${unique()}`);
  set('__NEW_IDP_DOMAIN__', () => `sam-${unique()}.example`);
  if (needed.has('__IDP_ALIAS__') && !values.__IDP_ISSUER__) throw new UsageError('Give __IDP_ISSUER__ with --set: an OpenID provider\'s issuer whose discovery document the stack can read');
  const derived = ['__IDP_ALIAS__', '__ACCESS_TOKEN__', '__SUPERVISOR_UUID__', '__AGENT_UUID__', '__USER_UUID__', '__USER_NAME__', '__USER_EMAIL__', '__JOB_ID__', '__WEBHOOK_ID__', '__DELIVERY_ID__', '__SCIM_TOKEN__', '__SCIM_TOKEN_ID__'];
  if (!derived.some((name) => needed.has(name) && values[name] === undefined)) return;
  const missing = ['__REALM__', '__CLIENT_ID__', '__ADMIN_EMAIL__', '__ADMIN_PASSWORD__', '__ORG_UUID__', '__ENV_UUID__', '__BOT_UUID__'].filter((name) => !values[name]);
  if (missing.length > 0) throw new UsageError(`To make the event's values through the API, give ${missing.join(', ')} with --set`);
  const token = (values.__ACCESS_TOKEN__ ??= await accessToken(stack, values));
  const { call, userArea, botArea } = client(stack, values);
  const json = async <T>(response: Response) => (await response.json()) as T;

  if (needed.has('__SUPERVISOR_UUID__')) values.__SUPERVISOR_UUID__ ??= (await json<{ uuid: string }>(await call('GET', botArea('/supervisors/default'), token))).uuid;
  if (needed.has('__AGENT_UUID__')) values.__AGENT_UUID__ ??= (await json<{ content: { uuid: string }[] }>(await call('GET', botArea('/agents'), token))).content[0]!.uuid;
  if (['__USER_UUID__', '__USER_NAME__', '__USER_EMAIL__'].some((name) => needed.has(name)) && !values.__USER_UUID__) {
    // A VIEWER of the first bot, named in one word so it goes into a query string as it is.
    const run = unique();
    const password = generatePassword();
    const user = await json<{ uuid: string; name: string; email: string; permissions: unknown[] }>(
      await call('POST', userArea('/users'), token, {
        name: `Probe${run}`,
        email: `sam-user-${run}@example.test`,
        password,
        confirmPassword: password,
        role: 'VIEWER',
        permissions: [{ environmentUuid: values.__ENV_UUID__, botUuid: values.__BOT_UUID__ }],
      }),
    );
    Object.assign(values, { __USER_UUID__: user.uuid, __USER_NAME__: user.name, __USER_EMAIL__: user.email });
    if (id === 'users.activate') await call('DELETE', userArea(`/users/${user.uuid}`), token);
    if (needed.has('__OFFLINE_SESSION_ID__')) values.__OFFLINE_SESSION_ID__ = await offlineSession(stack, values, user.email, password);
    // A second grant, so revoking the first leaves one.
    if (id === 'bulk.revoke') {
      const permissions = [...user.permissions, { environmentUuid: values.__ENV_UUID__, botUuid: values.__OTHER_BOT_UUID__ }];
      await call('PUT', userArea(`/users/${user.uuid}`), token, { ...user, permissions });
    }
  }
  if (['__SCIM_TOKEN__', '__SCIM_TOKEN_ID__'].some((name) => needed.has(name)) && !values.__SCIM_TOKEN__) {
    // One short-lived token for every event this process fills (an organization holds at most 10 live
    // ones); the revocation's event gets one of its own, which it revokes.
    const issue = async () => {
      const expiresAt = new Date(Date.now() + SAMPLE_SCIM_TOKEN_MINUTES * 60_000).toISOString();
      const response = await call('POST', userArea('/scim-tokens'), token, { description: 'sam:event', expiresAt });
      if (response.status !== 201) throw new UsageError(`Issuing a SCIM token for the event answered ${response.status}: ${await response.text()}`);
      return json<{ id: string; token: string }>(response);
    };
    const key = `${stack.apiUrl} ${values.__ORG_UUID__}`;
    const shared = id === 'scim.revokeToken' ? issue() : (scimTokens.get(key) ?? scimTokens.set(key, issue()).get(key)!);
    const issued = await shared;
    Object.assign(values, { __SCIM_TOKEN__: issued.token, __SCIM_TOKEN_ID__: issued.id });
  }
  if ((needed.has('__WEBHOOK_ID__') || needed.has('__DELIVERY_ID__')) && !values.__WEBHOOK_ID__) {
    const body = { url: values.__WEBHOOK_URL__, eventTypes: ['agent.updated'], enabled: true, excludeActors: [] };
    values.__WEBHOOK_ID__ = (await json<{ id: string }>(await call('POST', userArea('/webhooks'), token, body))).id;
  }
  if (needed.has('__IDP_ALIAS__') && !values.__IDP_ALIAS__) {
    const alias = `sam-${unique()}`;
    const body = { alias, displayName: 'sam:event', issuer: values.__IDP_ISSUER__, clientId: 'sam-event', clientSecret: 'sam-event-secret', domains: [`${alias}.example`], enforce: false };
    values.__IDP_ALIAS__ = (await json<{ alias: string }>(await call('POST', userArea('/identity-providers'), token, body))).alias;
  }
  if (needed.has('__DELIVERY_ID__') && !values.__DELIVERY_ID__) {
    // A ping's delivery, once its first attempt is listed (answered or not).
    const hook = userArea(`/webhooks/${values.__WEBHOOK_ID__}`);
    await call('POST', `${hook}/test`, token);
    for (let tries = 0; tries < 100 && !values.__DELIVERY_ID__; tries++) {
      const [attempt] = await json<{ deliveryId: string }[]>(await call('GET', `${hook}/deliveries`, token));
      if (attempt) values.__DELIVERY_ID__ = attempt.deliveryId;
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  if (needed.has('__JOB_ID__') && !values.__JOB_ID__) {
    // A finished dry run of a VIEWER and an EDITOR whose password breaks rule 3; for an S3 event, a real
    // job whose file is uploaded (answered at once; the stack runs it too, and a job runs safely twice).
    const s3 = id.includes('.s3-');
    const rows = [
      [`sam-job-${unique()}@example.test`, 'Ana Lima', 'Acme Support', '', 'VIEWER', values.__ENV_UUID__, values.__ENV_NAME__ ?? '', values.__BOT_UUID__],
      [`sam-job-other-${unique()}@example.test`, 'Bruno Costa', 'Acme Support', 'short', 'EDITOR', values.__ENV_UUID__, values.__ENV_NAME__ ?? '', values.__BOT_UUID__],
    ];
    const form = new FormData();
    const csv = [bulkCreateColumns, ...rows].map((row) => row.join(',')).join('\r\n');
    form.append('file', new Blob([`${csv}\r\n`], { type: 'text/csv' }), 'users.csv');
    const response = await call('POST', userArea(`/users/bulk-create${s3 ? '' : '?dryRun=true'}`), token, form, s3 ? { prefer: 'respond-async' } : {});
    values.__JOB_ID__ = /\/bulk-jobs\/([0-9a-f-]{36})$/.exec(response.headers.get('location') ?? '')?.[1] ?? '';
  }
}
