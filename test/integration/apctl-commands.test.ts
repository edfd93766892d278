import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apctl } from '../support/apctl';
import { freshBot, type FreshBot } from '../support/bot-helpers';
import { requestToken, stack, unique } from '../support/stack';
import { tempDirs } from '../support/temp-dirs';
import { startReceiver } from '../support/webhook-receiver';

/** apctl's bundle, import and api commands as CI runs them (the CI variables), against the local stack. */

const dirs = tempDirs('apctl-commands-');
let env: Record<string, string>;
let work: string;
const org = () => stack().orgs[0]!;
const run = (args: string[]) => apctl(args, { configHome: work, env });

beforeAll(async () => {
  work = dirs();
  const response = await requestToken(org().name, {
    grant_type: 'password',
    client_id: stack().clientId,
    username: org().admin.email,
    password: org().admin.password,
    scope: 'offline_access',
  });
  const { refresh_token } = (await response.json()) as { refresh_token: string };
  env = { APCTL_API_URL: stack().apiUrl, APCTL_REALM: org().name, APCTL_OFFLINE_TOKEN: refresh_token, APCTL_ORG: org().uuid };
});

describe('apctl bundle', () => {
  let source: FreshBot;
  let target: FreshBot;
  const bot = (b: FreshBot) => ['--env', b.envUuid, '--bot', b.botUuid];

  beforeAll(async () => {
    [source, target] = await Promise.all([freshBot(), freshBot()]);
  });

  test('export writes the bot as YAML; plan of a bundle the bot already matches exits 0', async () => {
    const file = join(work, 'source.yaml');

    const exported = await run(['bundle', 'export', ...bot(source), '-o', file]);
    const plan = await run(['bundle', 'plan', ...bot(source), '-f', file]);

    expect(exported.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^formatVersion: 1\n/);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes');
  });

  test('plan of a changed bundle prints the changes and exits 2; apply makes them, and the next plan exits 0', async () => {
    const file = join(work, 'changed.json');
    const exported = await run(['bundle', 'export', ...bot(source), '--format', 'json']);
    const bundle = JSON.parse(exported.stdout) as { supervisors: { goal: string }[] };
    bundle.supervisors[0]!.goal = `Route each promoted conversation ${unique()}`;
    writeFileSync(file, JSON.stringify(bundle));

    const plan = await run(['bundle', 'plan', ...bot(target), '-f', file]);
    const planJson = await run(['bundle', 'plan', ...bot(target), '-f', file, '--json']);
    const apply = await run(['bundle', 'apply', ...bot(target), '-f', file]);
    const after = await run(['bundle', 'plan', ...bot(target), '-f', file]);

    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ update supervisor "Test supervisor"');
    expect(plan.stdout).toContain(bundle.supervisors[0]!.goal);
    expect(planJson.code).toBe(2);
    expect(JSON.parse(planJson.stdout)).toMatchObject({ baseVersion: expect.any(String), changes: expect.any(Array) });
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/Applied: the bot's configuration version is now \S+/);
    expect(after.code).toBe(0);
  });

  test('apply against a version the bot no longer has changes nothing and exits 1', async () => {
    const file = join(work, 'stale.json');
    const exported = await run(['bundle', 'export', ...bot(source), '--format', 'json']);
    const bundle = JSON.parse(exported.stdout) as { supervisors: { goal: string }[] };
    bundle.supervisors[0]!.goal = `Not applied ${unique()}`;
    writeFileSync(file, JSON.stringify(bundle));

    const apply = await run(['bundle', 'apply', ...bot(target), '-f', file, '--base-version', 'stale-version']);
    const plan = await run(['bundle', 'plan', ...bot(target), '-f', file]);

    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('VERSION_CONFLICT');
    expect(plan.code).toBe(2);
  });

  test('a bundle the API refuses exits 1 with the fields to fix; a missing option exits 1 with the usage', async () => {
    const file = join(work, 'bad.json');
    writeFileSync(file, JSON.stringify({ formatVersion: 1, supervisors: [], agents: [{ role: 'X', unknownField: true }] }));

    const refused = await run(['bundle', 'plan', ...bot(target), '-f', file]);
    const missing = await run(['bundle', 'plan', '--env', target.envUuid, '-f', file]);

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('VALIDATION_FAILED');
    expect(refused.stderr).toContain('agents.0');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--bot');
  });
});

describe('apctl users import', () => {
  test('an import with failing rows prints each with its reason, writes them with --errors-out, reports progress on stderr, and exits 1', async () => {
    const seeded = org().environments[0]!;
    const good = `import-ok-${unique()}@acme.example`;
    const bad = `import-bad-${unique()}@acme.example`;
    const csv = join(work, 'users.csv');
    const errorsOut = join(work, 'errors.csv');
    writeFileSync(
      csv,
      `Email,Name,Role,EnvironmentUuid,EnvironmentName,Bot\n${good},Ok Person,VIEWER,${seeded.uuid},${seeded.name},${seeded.bots[0]!.uuid}\n${bad},Bad Person,OVERLORD,${seeded.uuid},${seeded.name},${seeded.bots[0]!.uuid}\n`,
    );

    const imported = await run(['users', 'import', csv, '--errors-out', errorsOut]);

    expect(imported.code).toBe(1);
    expect(imported.stdout).toMatch(new RegExp(`line 3\\t${bad}\\tROLE_INVALID`));
    expect(imported.stdout).toContain('2 rows: 1 users created, 1 failed.');
    expect(imported.stderr).toMatch(/Job done: 2\/2 rows, 1 created, 1 failed/);
    const failedRows = readFileSync(errorsOut, 'utf8');
    expect(failedRows.split(/\r?\n/)[0]).toMatch(/Error$/);
    expect(failedRows).toContain(bad);
    expect(failedRows).not.toContain(good);
  });

  test('a dry run of valid rows creates nobody and exits 0; --json prints the job', async () => {
    const seeded = org().environments[0]!;
    const csv = join(work, 'dry.csv');
    const email = `import-dry-${unique()}@acme.example`;
    writeFileSync(csv, `Email,Name,Role,EnvironmentUuid,EnvironmentName,Bot\n${email},Dry Person,VIEWER,${seeded.uuid},${seeded.name},${seeded.bots[0]!.uuid}\n`);

    const imported = await run(['users', 'import', csv, '--dry-run', '--json']);
    const listed = await run(['api', 'GET', `/user-management/org/{org}/users?searchTerms=${encodeURIComponent(email)}`, '--org', org().uuid]);

    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ status: 'done', dryRun: true, counts: { rows: 1, failed: 0 } });
    expect((JSON.parse(listed.stdout) as { content: unknown[] }).content).toEqual([]);
  });

  test('a file that is not there exits 1 saying so', async () => {
    const imported = await run(['users', 'import', join(work, 'missing.csv'), '--org', org().uuid]);

    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('Cannot read');
  });
});

describe('apctl api', () => {
  test('GET prints the JSON answer and exits 0; {org} stands for the organization', async () => {
    const answer = await run(['api', 'GET', '/user-management/org/{org}/users/identity-provider', '--org', org().uuid]);

    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.stdout)).toMatchObject({ email: org().admin.email, role: 'ADMIN', orgUUID: org().uuid });
  });

  test('POST --data @FILE sends the file; a refusal prints the error body and exits 1', async () => {
    const body = join(work, 'configuration.json');
    writeFileSync(body, JSON.stringify({ key: `apctl-${unique()}`, value: 'dark' }));

    const saved = await run(['api', 'POST', `/user-management/org/${org().uuid}/configurations`, '--data', `@${body}`]);
    const refused = await run(['api', 'POST', `/user-management/org/${org().uuid}/configurations`, '--data', '{"value":1}']);

    expect(saved.code).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ value: 'dark' });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ errorCode: 'VALIDATION_FAILED' });
  });

  test("an absolute address of the API is called; one of another host is refused and never sent the token", async () => {
    const elsewhere = await startReceiver(() => 200);
    try {
      const own = await run(['api', 'GET', `${stack().apiUrl}/user-management/org/{org}/users/identity-provider`]);
      const other = await run(['api', 'GET', `${elsewhere.url}/user-management/org/{org}/users`]);
      const schemeRelative = await run(['api', 'GET', `//127.0.0.1:${new URL(elsewhere.url).port}/x`]);

      expect(own.code).toBe(0);
      expect(JSON.parse(own.stdout)).toMatchObject({ email: org().admin.email });
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(`apctl api calls only the API (${new URL(stack().apiUrl).origin})`);
      expect(schemeRelative.code).toBe(1);
      expect(elsewhere.received).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  test('a path without a leading slash or an unknown method exits 1 with what to write', async () => {
    const noSlash = await run(['api', 'GET', 'users']);
    const method = await run(['api', 'FETCH', '/users']);

    expect(noSlash.code).toBe(1);
    expect(noSlash.stderr).toContain('PATH must start with /');
    expect(method.code).toBe(1);
    expect(method.stderr).toContain('METHOD must be');
  });
});

describe('apctl events', () => {
  test('tail and listen have help, and refuse bad arguments before calling the API', async () => {
    const help = await run(['events', 'listen', '--help']);
    const since = await run(['events', 'tail', '--since', 'yesterday-ish', '--org', org().uuid]);
    const forward = await run(['events', 'listen', '--forward-to', 'not an address', '--org', org().uuid]);

    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--forward-to <url>');
    expect(since.code).toBe(1);
    expect(since.stderr).toContain('--since must be a date');
    expect(forward.code).toBe(1);
    expect(forward.stderr).toContain('--forward-to must be an address');
  });

  test('npx apctl runs the same command in the repository', async () => {
    const { execFileSync } = await import('node:child_process');
    const version = execFileSync('npx', ['--no-install', 'apctl', '--version'], { cwd: join(__dirname, '../..'), encoding: 'utf8' });

    expect(version.trim()).toBe('0.1.0');
  });
});
