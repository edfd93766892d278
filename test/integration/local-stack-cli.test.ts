import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { projectRoot } from '../../infra/cloud/project-root';
import { JAVA_MISSING } from '../../infra/local/dynamodb-local';
import { removeAll, runToEnd, stackEnv, tempDir } from '../support/stack-process';

/**
 * What `npm start` and `npm run org` say before any stack runs: their options, their refusals and their
 * exit codes. Each refusal is one line (or the usage) and leaves the data directory as it was.
 */

const dirs: string[] = [];
afterAll(() => removeAll(dirs));

const startMain = (args: string[], env = stackEnv({ PORT: '0' })) => runToEnd(['infra/local/start.mjs', ...args], env);

describe('npm start', () => {
  test('runs the stack bundled once per state of its sources: the same sources reuse their bundle, a changed one is bundled anew', async () => {
    const cache = join(projectRoot, 'node_modules', '.cache');
    const bundles = () => new Set(readdirSync(cache).filter((name) => /^local-stack-[0-9a-f]+\.cjs$/.test(name)));
    const source = join(projectRoot, 'infra', 'local', 'seed.ts');
    const { atime, mtime } = statSync(source);
    expect((await startMain(['--help'])).code).toBe(0);
    const before = bundles();

    try {
      // A modification time no earlier run used, so that its bundle cannot exist yet.
      utimesSync(source, atime, new Date(mtime.getTime() + 1_000 + Math.floor(Math.random() * 1e9)));
      expect((await startMain(['--help'])).code).toBe(0);
      const changed = [...bundles()].filter((name) => !before.has(name));
      expect(changed).toHaveLength(1);
    } finally {
      // Restored to the millisecond: the file system keeps finer times, so this may be a state of its own.
      utimesSync(source, atime, mtime);
    }
    expect((await startMain(['--help'])).code).toBe(0);
    const again = bundles();
    expect((await startMain(['--help'])).code).toBe(0);
    expect(bundles()).toEqual(again);
  });

  test('--help prints every option and PORT, and exits 0', async () => {
    const result = await startMain(['--help']);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    for (const option of ['--fresh', '--data-dir <dir>', 'PORT=<port>', '--help']) expect(result.stdout).toContain(option);
    expect(result.stdout).toMatch(/--fresh +empties the data directory/);
  });

  test.each([
    ['an unknown option', ['--frsh'], /^Unknown option '--frsh'/],
    ['--data-dir without its directory', ['--data-dir'], /^Option '--data-dir <value>' argument missing/],
    ['an argument that is no option', ['fresh'], /^Unexpected argument 'fresh'/],
  ])('%s exits 2 with the usage', async (_label, args, message) => {
    const result = await startMain(args);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm start');
  });

  test('a PORT that is no port number exits 2 in one line', async () => {
    const result = await startMain([], stackEnv({ PORT: '3000x' }));

    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('PORT must be a port number from 0 to 65535 (got "3000x")\n');
  });

  test('`npm start --fresh`, whose --fresh npm keeps for itself, is refused in one line giving `npm start -- --fresh`, exit 2', async () => {
    const dataDir = tempDir('stack-cli-', dirs);

    const result = await runToEnd(['start', '--silent', '--fresh', '--', '--data-dir', dataDir], stackEnv({ PORT: '0' }), 'npm');

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('npm took --fresh as its own option and would not pass it on: run npm start -- --fresh\n');
    expect(readdirSync(dataDir)).toEqual([]);
  });

  test('without Java, it says what to install in one line and exits 1', async () => {
    const dataDir = tempDir('stack-cli-', dirs);
    // Every PATH entry that holds java or javac goes; the test runs node by its absolute path.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => dir && !existsSync(join(dir, 'java')) && !existsSync(join(dir, 'javac')))
      .join(delimiter);

    const result = await startMain(['--data-dir', dataDir], stackEnv({ PORT: '0', PATH: path, JAVA_HOME: undefined }));

    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(`${JAVA_MISSING}\n`);
    expect(existsSync(join(dataDir, 'stack.lock'))).toBe(false);
  });
});

describe('npm run org', () => {
  const org = (args: string[]) => runToEnd(['--import', 'tsx', 'infra/cli/org.ts', ...args], stackEnv());

  test('without a command prints the usage on stderr and exits 2', async () => {
    const result = await org([]);

    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(/^org: No command given\nUsage: npm run org -- <command>/);
  });

  test('--help prints the usage on stdout and exits 0', async () => {
    const result = await org(['--help']);

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: npm run org -- <command>/);
  });

  test('against a directory with no stack, says to start one, exit 2', async () => {
    const dataDir = tempDir('stack-cli-', dirs);

    const result = await org(['add-environment', '--org', 'x', '--name', 'y', '--data-dir', dataDir]);

    expect(result).toMatchObject({ code: 2, stdout: '', stderr: `org: No local stack in ${dataDir}: start it with npm start, or pass --outputs <file>\n` });
  });
});
