import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { apctl, startApctl, type ApctlProcess } from '../support/apctl';
import { stackApiClient } from '../support/api-client';
import { freshOrganization, uniqueEmail, type TestOrg } from '../support/user-helpers';
import { requestToken, stack } from '../support/stack';
import { tempDirs } from '../support/temp-dirs';
import { eventually, startReceiver } from '../support/webhook-receiver';

/**
 * apctl's events commands against the change feed (GET /{user_subpath}/org/{orgUUID}/events): tail
 * prints what happens, listen forwards signed Standard Webhooks deliveries that the standardwebhooks
 * library verifies, retries a failing receiver, and resumes after a restart from where it stopped.
 * Save as test/integration/apctl-events.test.ts once the feed is served.
 */

const configHome = tempDirs('apctl-events-');
let org: TestOrg;

async function signedInProfile(): Promise<string> {
  const home = configHome();
  const response = await requestToken(org.realm, { grant_type: 'password', client_id: stack().clientId, username: org.admin.email, password: org.admin.password, scope: 'offline_access' });
  const { refresh_token } = (await response.json()) as { refresh_token: string };
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(join(home, 'apctl'), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(home, 'apctl', 'default.json'),
    JSON.stringify({ apiUrl: stack().apiUrl, realm: org.realm, clientId: stack().clientId, offlineToken: refresh_token, org: org.orgUuid }),
    { mode: 0o600 },
  );
  return home;
}

async function createUser(name: string): Promise<string> {
  const email = uniqueEmail('feed');
  const { error } = await stackApiClient(org.admin.token).POST('/user-management/org/{orgUUID}/users', {
    params: { path: { orgUUID: org.orgUuid } },
    body: { name, email, role: 'VIEWER', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] },
  });
  if (error) throw new Error(JSON.stringify(error));
  return email;
}

const stop = async (process: ApctlProcess) => {
  process.child.kill('SIGINT');
  return process.done;
};

beforeAll(async () => {
  org = await freshOrganization();
});

test('events tail prints each new event as a JSON line', async () => {
  const home = await signedInProfile();
  const tail = startApctl(['events', 'tail', '--json', '--types', 'user.created'], { configHome: home });
  await new Promise((resolve) => setTimeout(resolve, 2000));

  const email = await createUser('Tailed Person');
  await eventually(() => tail.stdout().includes(email), 'the tailed event', 30_000);
  const finished = await stop(tail);

  expect(finished.code).toBe(0);
  const events = finished.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; data: { after?: { email?: string } } });
  expect(events.every((event) => event.type === 'com.agentplatform.user.created')).toBe(true);
});

test('events listen forwards signed deliveries, retries a failing receiver, and resumes after a restart', async () => {
  const home = await signedInProfile();
  const receiver = await startReceiver((index) => (index === 0 ? 500 : 204));
  const listen = startApctl(['events', 'listen', '--forward-to', receiver.url, '--types', 'user.*'], { configHome: home });
  const [, secret] = await listen.waitForStderr(/signed with (whsec_\S+)/);

  const first = await createUser('Forwarded Person');
  await eventually(() => receiver.received.some((entry) => entry.body.includes(first) && receiver.received.indexOf(entry) > 0), 'the retried delivery', 30_000);
  const stopped = await stop(listen);

  // Standard Webhooks' own library verifies every delivery with the printed secret.
  const verifier = new Webhook(secret!);
  for (const entry of receiver.received) {
    expect(() => verifier.verify(entry.body, entry.headers as Record<string, string>)).not.toThrow();
  }
  expect(stopped.code).toBe(0);
  expect(stopped.stdout).toMatch(/--> user\.created \[\S+\]\s+<-- 204 \(\d+ ms\), 2 attempts/);
  const profile = JSON.parse(readFileSync(join(home, 'apctl', 'default.json'), 'utf8')) as { webhookSecret: string; listenPositions: Record<string, unknown> };
  expect(profile.webhookSecret).toBe(secret);
  expect(Object.values(profile.listenPositions)).toHaveLength(1);

  // Changes made while it is stopped are forwarded by the next run, and nothing already delivered again.
  const whileStopped = await createUser('Missed Person');
  const before = receiver.received.length;
  const again = startApctl(['events', 'listen', '--forward-to', receiver.url, '--types', 'user.*'], { configHome: home });
  await again.waitForStderr(new RegExp(`signed with ${secret!.replace(/[+/]/g, '\\$&')}`));
  await eventually(() => receiver.received.slice(before).some((entry) => entry.body.includes(whileStopped)), 'the missed event', 30_000);
  await stop(again);

  expect(receiver.received.slice(before).some((entry) => entry.body.includes(first))).toBe(false);
  await receiver.close();
});

test('a listen stopped in the middle of a page resumes after the last event it delivered: nothing twice, nothing missed', async () => {
  const home = await signedInProfile();
  let stuck = true;
  let second = '';
  const receiver = await startReceiver((_index, body) => (stuck && body.includes(second) ? 'hang' : 204));
  const listen = (target: string) => startApctl(['events', 'listen', '--forward-to', target, '--types', 'user.created'], { configHome: home });
  // The first run only settles the position (the end of the feed now) and is stopped before anything happens.
  const settle = listen(receiver.url);
  await settle.waitForStderr(/Ready\./);
  await stop(settle);
  const first = await createUser('Paged First');
  second = await createUser('Paged Second');

  // Both changes are one page; the receiver takes the first and hangs on the second, and listen is stopped then.
  const interrupted = listen(receiver.url);
  await eventually(() => receiver.received.some((entry) => entry.body.includes(second)), 'the second delivery under way', 30_000);
  const stopped = await stop(interrupted);
  stuck = false;
  const before = receiver.received.length;
  const resumed = listen(receiver.url);
  await eventually(() => receiver.received.slice(before).some((entry) => entry.body.includes(second)), 'the second delivered by the next run', 30_000);
  await stop(resumed);
  await receiver.close();

  expect(stopped.code).toBe(0);
  expect(stopped.stdout).toMatch(/user\.created \[\S+\]\s+<-- 204/);
  expect(receiver.received.slice(0, before).filter((entry) => entry.body.includes(first))).toHaveLength(1);
  expect(receiver.received.slice(before).filter((entry) => entry.body.includes(first))).toEqual([]);
  expect(receiver.received.slice(before).filter((entry) => entry.body.includes(second))).toHaveLength(1);
});

test('a listen with no profile and no CI variables says how to sign in', async () => {
  const run = await apctl(['events', 'listen', '--forward-to', 'http://127.0.0.1:9/hook'], { configHome: configHome() });

  expect(run.code).toBe(1);
  expect(run.stderr).toContain('apctl login');
});
