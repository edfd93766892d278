import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requestToken, stack, unique, userArea } from '../support/stack';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/** Runs the operator CLI against this run's local stack, as `npm run org -- …` would. */
async function org(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'infra/cli/org.ts', ...args, '--data-dir', process.env.TEST_STACK_DIR!], {
      cwd: root,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

test('creates an organization whose ADMIN can get a token and read itself, then adds its content', async () => {
  const realm = `cli-${unique()}`;
  const created = await org('create', '--name', realm, '--admin-email', `ops@${realm}.example`, '--admin-password', 'Cli-Passw0rd');
  expect(created).toMatchObject({ code: 0, stderr: '' });
  const { organization } = JSON.parse(created.stdout) as { organization: { uuid: string; name: string } };
  expect(organization.name).toBe(realm);

  const env = JSON.parse((await org('add-environment', '--org', organization.uuid, '--name', 'Prod')).stdout) as { uuid: string };
  const bot = JSON.parse((await org('add-bot', '--org', organization.uuid, '--env', env.uuid, '--name', 'Bot')).stdout) as { uuid: string; envUuid: string };
  const persona = JSON.parse((await org('add-persona', '--bot', bot.uuid, '--name', 'Guide')).stdout) as { uuid: string };
  const fn = await org('add-function', '--bot', bot.uuid, '--name', 'lookupOrder');
  const collection = await org('add-collection', '--bot', bot.uuid, '--name', 'Manuals', '--document-count', '3');
  const supervisor = await org('add-supervisor', '--bot', bot.uuid, '--role', 'Supervisor', '--goal', 'Route', '--persona', persona.uuid);
  expect(bot.envUuid).toBe(env.uuid);
  expect([fn.code, collection.code, supervisor.code]).toEqual([0, 0, 0]);
  expect(JSON.parse(collection.stdout)).toMatchObject({ name: 'Manuals', documentCount: 3, botUuid: bot.uuid });

  const token = await requestToken(realm, { grant_type: 'password', client_id: stack().clientId, username: `ops@${realm}.example`, password: 'Cli-Passw0rd' });
  const { access_token } = (await token.json()) as { access_token: string };
  const me = await fetch(userArea(organization.uuid, '/users/identity-provider'), { headers: { authorization: `Bearer ${access_token}` } });
  expect(await me.json()).toMatchObject({ orgUUID: organization.uuid, role: 'ADMIN', admin: true });
});

test.each([
  ['an unknown command', ['frobnicate'], /Unknown command "frobnicate"/],
  ['a missing option', ['add-bot', '--org', 'x', '--name', 'y'], /add-bot needs --env/],
  ['an option of another command', ['add-function', '--bot', 'x', '--name', 'y', '--role', 'z'], /--role does not apply to add-function/],
  ['an unknown option', ['create', '--bogus', '1'], /Unknown option '--bogus'/],
  ['a bad communication style', ['add-persona', '--bot', 'x', '--name', 'y', '--communication-style', 'LOUD'], /--communication-style must be one of/],
])('%s is one line on stderr and exit code 2', async (_label, args, message) => {
  const result = await org(...args);

  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(message);
});

test.each([
  ['a taken realm', () => ['create', '--name', stack().orgs[0]!.name, '--admin-email', 'a@b.example', '--admin-password', 'Aa-1234']],
  ['a weak password', () => ['create', '--name', `w-${unique()}`, '--admin-email', 'a@b.example', '--admin-password', 'weak']],
  ['a realm with capitals and spaces', () => ['create', '--name', 'Bad Name', '--admin-email', 'a@b.example', '--admin-password', 'Aa-1234']],
  ['a bot that does not exist', () => ['add-function', '--bot', '00000000-0000-4000-8000-000000000000', '--name', 'x']],
])('%s is refused in one line with a non-zero exit', async (_label, args) => {
  const result = await org(...args());

  expect(result.code).toBe(1);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(/^org: /);
  expect(result.stderr).not.toMatch(/at .*\.ts:\d+/);
});
