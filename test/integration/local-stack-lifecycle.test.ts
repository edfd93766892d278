import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackInfo } from '../../infra/local/stack';
import { demoOrganizations } from '../../infra/local/seed';
import { awaitLocalStack } from '../../infra/stack-target';
import { unique } from '../support/stack';
import {
  freePort,
  ownStacks,
  passwordGrant,
  runToEnd,
  spawnStack,
  stackEnv,
  stopStack,
  tempDir,
  whenReady,
  type StackProcess,
} from '../support/stack-process';

/**
 * The local stack's own life: start-up (503 until ready), one stack per data directory, Ctrl-C through
 * `npm start`, a restart that keeps the data, the mailbox included, and a restart right after a kill.
 * The stacks here are this file's own, each on its own temporary data directory; a start costs
 * several seconds, so there are few.
 */

const { dirs, running } = ownStacks();

const demo = demoOrganizations[0]!;

/** The content of some files of `dir`, for "nothing changed" checks. */
function snapshot(dir: string, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

async function tokenOf(info: StackInfo): Promise<string> {
  const response = await passwordGrant(info, demo.name, demo.adminEmail, demo.adminPassword);
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** The first demo organization's ADMIN reads itself: the token endpoint (Cognito), the users area (DynamoDB). */
async function readsItself(info: StackInfo): Promise<number> {
  const response = await fetch(`${info.apiUrl}/${info.userSubpath}/org/${info.orgs[0]!.uuid}/users/identity-provider`, {
    headers: { authorization: `Bearer ${await tokenOf(info)}` },
  });
  await response.arrayBuffer();
  return response.status;
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: string;
  /** Whether stack.json was there when the request was sent. */
  describedBefore: boolean;
}

describe('a stack on its data directory', () => {
  let dataDir: string;
  let port: number;
  let first: StackProcess;
  let info: StackInfo;
  const answers: Answer[] = [];

  beforeAll(async () => {
    dataDir = tempDir('stack-lifecycle-', dirs);
    port = await freePort();
    // As a user types it, so that Ctrl-C below goes through npm and its shell as in a terminal.
    first = spawnStack(['--fresh', '--data-dir', dataDir], stackEnv({ PORT: String(port) }), 'npm start');
    running.push(first);
    // From before the gateway listens until its first 200: what a client polling a starting stack sees.
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && first.child.exitCode === null) {
      const describedBefore = existsSync(join(dataDir, 'stack.json'));
      const response = await fetch(`http://127.0.0.1:${port}/openapi.json`).catch(() => undefined);
      if (response) {
        const body = await response.text();
        answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body, describedBefore });
        if (response.status !== 503) break;
      }
      await sleep(25);
    }
    info = await whenReady(first, dataDir);
  });

  test('answers 503 with Retry-After and the standard error body until it is ready, then serves; stack.json and the banner appear at that moment', async () => {
    const starting = answers.slice(0, -1);
    const firstServed = answers.at(-1)!;

    expect(starting.length).toBeGreaterThan(0);
    for (const answer of starting) {
      expect(answer).toMatchObject({ status: 503, retryAfter: '1', describedBefore: false });
      expect(JSON.parse(answer.body)).toEqual({
        timestamp: expect.any(Number),
        errorCode: 'STACK_STARTING',
        errorType: 'API_ERROR',
        message: expect.stringMatching(/retry in a moment/),
        path: '/openapi.json',
      });
    }
    expect(firstServed.status).toBe(200);
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(true);
    // Printed before the first 200 was sent; the pipe may deliver it a moment after the response.
    for (let waited = 0; !first.output().includes('ready in') && waited < 5000; waited += 50) await sleep(50);
    expect(first.output()).toContain('ready in');
  });

  test('stack.json names the API reference, the account page and the mailbox viewer', async () => {
    expect(info).toMatchObject({
      docsUrl: `${info.apiUrl}/docs`,
      accountUrl: `${info.apiUrl}/auth/realms/{realm}/account`,
      mailboxUrl: `${info.endpoints.ses}/store`,
      mailboxViewerUrl: `${info.endpoints.ses}/`,
    });
    const pages = await Promise.all(
      [info.docsUrl, info.accountUrl.replace('{realm}', demo.name), info.mailboxViewerUrl].map(async (url) => {
        const response = await fetch(url);
        return [response.status, response.headers.get('content-type'), (await response.text()).includes('<html')];
      }),
    );
    expect(pages).toEqual([
      [200, expect.stringMatching(/text\/html/), true],
      [200, expect.stringMatching(/text\/html/), true],
      [200, expect.stringMatching(/text\/html/), true],
    ]);
    for (const shown of [info.docsUrl, info.accountUrl.replace('{realm}', demo.name), info.mailboxViewerUrl, join(dataDir, 'stack.json')]) {
      expect(first.output()).toContain(shown);
    }
  });

  test('a second stack on the same directory, --fresh, on the same port or another, refuses in one line and deletes nothing', async () => {
    const kept = ['stack.json', 'signing-key.json', 'seed.json', 'user-pool.json', 'function-env.json'];
    const before = snapshot(dataDir, kept);
    const entries = readdirSync(dataDir);
    const cognitoFiles = readdirSync(join(dataDir, 'cognito', 'db'));

    const refusals = await Promise.all(
      [String(port), '0'].map((PORT) => runToEnd(['infra/local/start.mjs', '--fresh', '--data-dir', dataDir], stackEnv({ PORT }))),
    );

    expect(refusals).toHaveLength(2);
    for (const refused of refusals) {
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain(`in use by the local stack at ${info.apiUrl}`);
      expect(refused.stderr).toContain('--data-dir');
    }
    expect(snapshot(dataDir, kept)).toEqual(before);
    // The running stack may add its own files meanwhile (its IAM report); none may go.
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(entries));
    expect(readdirSync(join(dataDir, 'cognito', 'db'))).toEqual(expect.arrayContaining(cognitoFiles));
    expect(await readsItself(info)).toBe(200);
  });

  test('a stack on another directory but the same port refuses in one line, suggesting nothing that touches this stack', async () => {
    const otherDir = tempDir('stack-lifecycle-other-', dirs);

    const refused = await runToEnd(['infra/local/start.mjs', '--fresh', '--data-dir', otherDir], stackEnv({ PORT: String(port) }));

    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(new RegExp(`^Port ${port} is already in use .*: stop it, or start this one with PORT=<another port> npm start -- --data-dir ${otherDir}\\n$`));
    expect(readdirSync(otherDir)).toEqual([]);
    expect(await readsItself(info)).toBe(200);
  });

  test('Ctrl-C ends npm start with status 0; a restart on the same data keeps users, data, ports and the mailbox', async () => {
    const email = `lifecycle-${unique()}@example.test`;
    const created = await fetch(`${info.apiUrl}/${info.userSubpath}/org/${info.orgs[0]!.uuid}/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenOf(info)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lifecycle User', email, role: 'ADMIN' }),
    });
    expect(created.status).toBe(200);
    const { uuid } = (await created.json()) as { uuid: string };
    const mailsTo = async (stack: StackInfo) => {
      // E-mails leave through the stack's mail queue, after the request: read once it caught up.
      await fetch(`${new URL(stack.mailQueueUrl).origin}/_local/queues/mail/settled?timeoutMs=30000`);
      const { emails } = (await (await fetch(stack.mailboxUrl)).json()) as { emails: { messageId: string; destination: { to: string[] } }[] };
      return emails.filter((mail) => mail.destination.to.includes(email));
    };
    const sent = await mailsTo(info);
    expect(sent).toHaveLength(1);

    const code = await stopStack(first, 'SIGINT');

    expect(code).toBe(0);
    expect(first.output()).toContain('SIGINT: stopping the local stack');
    expect(existsSync(join(dataDir, 'stack.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'stack.json'))).toBe(false);
    const restarted = spawnStack(['--data-dir', dataDir], stackEnv({ PORT: '0' }));
    running.push(restarted);
    const again = await whenReady(restarted, dataDir);
    expect(again.orgs).toEqual(info.orgs);
    expect(again.endpoints).toEqual(info.endpoints);
    expect(await mailsTo(again)).toEqual(sent);
    expect(await readsItself(again)).toBe(200);
    const user = await fetch(`${again.apiUrl}/${again.userSubpath}/org/${again.orgs[0]!.uuid}/users/${uuid}`, {
      headers: { authorization: `Bearer ${await tokenOf(again)}` },
    });
    expect({ status: user.status, email: ((await user.json()) as { email: string }).email }).toEqual({ status: 200, email });
    expect(await stopStack(restarted, 'SIGTERM')).toBe(0);
  });
});

describe('a stack killed with SIGKILL', () => {
  /** The state letter and the parent pid of `/proc/<pid>/stat` (after the command name, which may hold spaces). */
  const procStat = (pid: number) => {
    const [state, ppid] = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return { state, ppid: Number(ppid) };
  };

  test('restarted at once on the same data directory, while the killed one is not yet reaped, comes up and serves', async () => {
    const dataDir = tempDir('stack-killed-', dirs);
    const killed = spawnStack(['--fresh', '--data-dir', dataDir], stackEnv({ PORT: '0' }), 'npm start');
    running.push(killed);
    await whenReady(killed, dataDir);
    const holder = (JSON.parse(readFileSync(join(dataDir, 'stack.lock'), 'utf8')) as { pid: number }).pid;

    // Its parent is held still, as a supervisor is between the kill and its wait: the killed stack stays a zombie.
    process.kill(procStat(holder).ppid, 'SIGSTOP');
    process.kill(holder, 'SIGKILL');
    for (let waited = 0; procStat(holder).state !== 'Z' && waited < 5000; waited += 10) await sleep(10);
    expect(procStat(holder).state).toBe('Z');
    const restartedAt = Date.now();
    const restarted = spawnStack(['--data-dir', dataDir], stackEnv({ PORT: '0' }), 'npm start');
    running.push(restarted);
    const started = await awaitLocalStack(dataDir, { alive: () => restarted.child.exitCode === null, since: restartedAt, timeoutMs: 90_000 });

    expect(started).toEqual({ info: expect.objectContaining({ apiUrl: expect.any(String) }) });
    expect(procStat(holder).state).toBe('Z');
    expect(await readsItself((started as { info: StackInfo }).info)).toBe(200);
    expect(await stopStack(restarted, 'SIGTERM')).toBe(0);
  });
});
