import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackInfo } from '../../infra/local/stack';
import { demoOrganizations } from '../../infra/local/seed';
import { ownStacks, runToEnd, spawnStack, stackEnv, stopStack, tempDir, whenReady, type StackProcess } from '../support/stack-process';
import { eventually, startReceiver } from '../support/webhook-receiver';

/**
 * What `npm start` prints while it runs, in each log mode, and when Ctrl-C stops it, as a user's
 * terminal sees it: the stack is this file's own child process (a fresh start, then restarts on the
 * same data directory).
 */

const { dirs, running } = ownStacks();

const demo = demoOrganizations[0]!;
const dataDir = tempDir('stack-terminal-', dirs);
// The functions' INFO lines are what the request lines are made of (the test stacks otherwise run SILENT).
const env = (extra: Record<string, string> = {}) => stackEnv({ PORT: '0', POWERTOOLS_LOG_LEVEL: 'INFO', ...extra });

async function started(args: string[], extra: Record<string, string> = {}): Promise<{ stack: StackProcess; info: StackInfo }> {
  const stack = spawnStack(['--data-dir', dataDir, ...args], env(extra));
  running.push(stack);
  return { stack, info: await whenReady(stack, dataDir) };
}

function tokenRequest(info: StackInfo, requestId: string, password = demo.adminPassword): Promise<Response> {
  const body = new URLSearchParams({ grant_type: 'password', client_id: info.clientId, username: demo.adminEmail, password });
  return fetch(`${info.authUrl}/auth/realms/${demo.name}/protocol/openid-connect/token`, { method: 'POST', body, headers: { 'x-request-id': requestId } });
}

/** What the stack printed after its banner. */
const afterBanner = (stack: StackProcess) => stack.output().split('`npm start -- --banner` prints this again.').at(-1)!;

/** Waits until `text` is in the output (a line is written as the answer goes out, so it may follow it by a moment). */
async function printed(stack: StackProcess, text: string): Promise<string> {
  for (let waited = 0; !stack.output().includes(text) && waited < 5_000; waited += 50) await sleep(50);
  return afterBanner(stack);
}

describe('npm start: the terminal', () => {
  let first: { stack: StackProcess; info: StackInfo };
  beforeAll(async () => {
    first = await started(['--fresh']);
  });

  test('by default, one line per request labelled with its function (method, path, status, ms, request id); nothing of metrics, the set-up or the demo provider', async () => {
    const granted = await tokenRequest(first.info, 'terminal-ok');
    const { access_token: token } = (await granted.json()) as { access_token: string };
    expect(granted.status).toBe(200);
    expect((await tokenRequest(first.info, 'terminal-wrong', 'Wrong-Passw0rd!')).status).toBe(400);

    const output = await printed(first.stack, 'terminal-wrong');
    const path = `/auth/realms/${demo.name}/protocol/openid-connect/token`;
    expect(output).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d auth +POST ${path} 200 \\d+ ms  terminal-ok$`, 'm'));
    expect(output).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d auth +POST ${path} 400 \\d+ ms  terminal-wrong$`, 'm'));
    // Neither the functions' JSON lines nor the metrics, nor the demo provider's development warnings.
    expect(first.stack.output()).not.toMatch(/^\{/m);
    expect(first.stack.output()).not.toContain('oidc-provider');
    for (const secret of [token, 'Wrong-Passw0rd!', demo.adminPassword]) expect(output).not.toContain(secret);
  });

  test('prints nothing while idle', async () => {
    await sleep(1_500); // The handler modules nobody called yet load a second after the stack answers.
    const before = first.stack.output();
    await sleep(4_000);
    expect(first.stack.output()).toBe(before);
  });

  test('--banner prints the running stack\'s banner (URLs and demo logins) from its data directory, and starts none', async () => {
    const result = await runToEnd(['infra/local/start.mjs', '--banner', '--data-dir', dataDir], env());

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`Management API (local) running on`);
    expect(result.stdout).toContain(first.info.apiUrl);
    expect(result.stdout).toContain(`${demo.adminEmail}`);
    expect(result.stdout).toContain(first.info.orgs[0]!.uuid);
    expect(await stopStack(first.stack)).toBe(0);
  });

  test('--banner without a running stack says how to start one, exit 1', async () => {
    const result = await runToEnd(['infra/local/start.mjs', '--banner', '--data-dir', dataDir], env());

    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(`No local stack runs on ${dataDir}: start one with npm start -- --data-dir ${dataDir}\n`);
  });

  test('quiet (LOCAL_LOG=quiet): no request line, a warning in full with its request id and function', async () => {
    const { stack, info } = await started([], { LOCAL_LOG: 'quiet' });
    expect((await tokenRequest(info, 'quiet-ok')).status).toBe(200);
    // Over Lambda's 6 MB invocation payload: the gateway answers 413 without invoking, and warns.
    const oversized = await fetch(`${info.apiUrl}/${info.userSubpath}/org/${info.orgs[0]!.uuid}/users`, { method: 'POST', body: 'x'.repeat(6_500_000), headers: { 'content-type': 'text/plain' } });
    expect(oversized.status).toBe(413);

    const output = await printed(stack, 'payload');
    const warning = /^\d\d:\d\d:\d\d users +WARN the event is over Lambda's \d+-byte invocation payload: 413 without invoking {2}request [0-9a-f-]{36} {2}(\{.*\})$/m.exec(output);
    expect(warning).not.toBeNull();
    expect(JSON.parse(warning![1]!)).toMatchObject({ level: 'WARN', source: 'local-gateway', function: 'users', requestId: expect.any(String), payloadBytes: expect.any(Number) });
    expect(output).not.toContain('quiet-ok');
    expect(await stopStack(stack)).toBe(0);
  });

  test('Ctrl-C while a webhook sweep waits on a receiver: nothing logged while stopping, exit 0 within seconds', async () => {
    const { stack, info } = await started([]);
    // A receiver that holds every delivery unanswered: the sweep's attempt is in flight when the signal comes.
    const receiver = await startReceiver(() => 'hang');
    try {
      const { access_token: token } = (await (await tokenRequest(info, 'sweep-token')).json()) as { access_token: string };
      const webhooks = `${info.apiUrl}/${info.userSubpath}/org/${info.orgs[0]!.uuid}/webhooks`;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(webhooks, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url, eventTypes: ['*'], enabled: true, excludeActors: [] }) });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await fetch(`${webhooks}/${id}/test`, { method: 'POST', headers })).status).toBe(202);
      await eventually(() => receiver.received.length > 0, 'the ping at the receiver', 15_000);

      // As a terminal's Ctrl-C, to the whole process group. A sweep that waited on the receiver would hold the stop 10 s.
      const goneInTime = await stack.stop('SIGINT', 8_000);
      const stopping = stack.output().split('SIGINT: stopping the local stack').at(-1)!;
      expect(stopping).not.toMatch(/ERROR|WARN/);
      expect(goneInTime).toBe(true);
      expect(await stack.exited).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  test('Ctrl-C while it starts: it stops once started, exit 0, with no error', async () => {
    const stack = spawnStack(['--fresh', '--data-dir', dataDir], env());
    running.push(stack);
    // A start's progress lines begin after 1.5 s, DynamoDB Local's JVM up and the seeding not done (a faster machine may answer first).
    const starting = () => /^ {2}… (?!bundling|compiling)/m.test(stack.output()) || existsSync(join(dataDir, 'stack.json'));
    for (let waited = 0; !starting() && waited < 60_000; waited += 20) await sleep(20);

    expect(await stopStack(stack, 'SIGINT')).toBe(0);
    expect(stack.output()).toContain('SIGINT: stopping the local stack');
    expect(stack.output()).not.toMatch(/ERROR|WARN|did not start/);
  });

  test('--log with an unknown mode exits 2 with the usage', async () => {
    const result = await runToEnd(['infra/local/start.mjs', '--log', 'loud', '--data-dir', dataDir], env());

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^--log \(or LOCAL_LOG\) takes one of requests, json, quiet \(got "loud"\)/);
  });
});
