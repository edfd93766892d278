import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResourceGroup } from '../../shared/edge/api/routes';
import { fullEventType } from '../../shared/domain/audit/cloud-event';
import { config, ConfigError, readConfig } from '../../shared/kernel/config';
import { environmentOverrides } from '../../infra/local/deployment/overrides';
import { envReportFile, recordEnvReads, type EnvReads } from '../../infra/local/env/stack-environments';
import { defaultsMeant, envReportProblems } from '../support/local-report-checks';
import { functionEnvironment, useFunctionEnvironments } from '../../infra/local/env/process-env';
import { runAsFunction } from '../../infra/local/kernel/function-context';

// Every function runs in the local stack's one process, yet each sees only its own environment, and a
// read of a product variable its template does not declare is recorded, which fails the integration run.

const localOnly = new Set(environmentOverrides.filter((entry) => entry.kind === 'local-only').map((entry) => entry.variable));

/** Each function's variables, and which of them its template declares (as the users function's template once lacked EVENT_TYPE_PREFIX). */
const functions: Record<string, { values: Record<string, string>; declared: string[] }> = {
  users: {
    values: { POWERTOOLS_SERVICE_NAME: 'users', TABLE_NAME: 'local-table', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' },
    declared: ['POWERTOOLS_SERVICE_NAME', 'TABLE_NAME'],
  },
  publisher: {
    values: { POWERTOOLS_SERVICE_NAME: 'publisher', TABLE_NAME: 'local-table', EVENT_TYPE_PREFIX: 'com.example' },
    declared: ['POWERTOOLS_SERVICE_NAME', 'TABLE_NAME', 'EVENT_TYPE_PREFIX'],
  },
  docs: { values: { POWERTOOLS_SERVICE_NAME: 'docs' }, declared: ['POWERTOOLS_SERVICE_NAME'] },
};

const outside = process.env.POWERTOOLS_SERVICE_NAME;
let dir: string;
let reads: EnvReads;
let restore: () => void;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'local-function-env-'));
  reads = recordEnvReads(dir);
  const objects = new Map(
    Object.entries(functions).map(([group, { values, declared }]) => [group as ResourceGroup, functionEnvironment(group as ResourceGroup, values, new Set(declared), reads.record)]),
  );
  restore = useFunctionEnvironments(objects);
});

afterEach(() => {
  restore();
  // Before the directory goes: a write pending from this test would otherwise land after it, in a later file's test.
  reads.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A handler of the users function that types a change event, as its webhook routes do (`fullEventType`). */
const usersHandler = async () => fullEventType('agent.created');

test('a handler reading a product variable its function lacks in the template fails the run, naming the function and the variable', async () => {
  const typed = await runAsFunction('users', usersHandler);

  const problems = envReportProblems(reads.report(), { localOnly, defaultsMeant });
  expect(typed).toBe('com.agentplatform.agent.created');
  expect(problems).toEqual([
    expect.stringMatching(/^users: read EVENT_TYPE_PREFIX 1 time\(s\), which its function does not have in the synthesized template \(in AWS it is unset\)\. Give the function the variable in infra\/cloud\//),
  ]);
});

test('the same read by a function whose template declares the variable, a local-only variable and a default meant are no problem', async () => {
  const typed = await runAsFunction('publisher', async () => fullEventType('agent.created'));
  await runAsFunction('users', async () => [config().endpoints.dynamodb, config().accessTokenSeconds]);

  expect(typed).toBe('com.example.agent.created');
  expect(reads.report().functions).toEqual({
    users: [
      { variable: 'ACCESS_TOKEN_SECONDS', reads: 1 },
      { variable: 'DYNAMODB_ENDPOINT', reads: 1 },
    ],
  });
  expect(envReportProblems(reads.report(), { localOnly, defaultsMeant })).toEqual([]);
});

test('process.env is the running function’s own environment, the process’s outside any function', async () => {
  const seen = await Promise.all(
    (['users', 'docs'] as const).map((group) => runAsFunction(group, async () => ({ service: process.env.POWERTOOLS_SERVICE_NAME, table: process.env.TABLE_NAME }))),
  );

  expect(seen).toEqual([
    { service: 'users', table: 'local-table' },
    { service: 'docs', table: undefined },
  ]);
  expect(process.env.POWERTOOLS_SERVICE_NAME).toBe(outside);
});

test('a child process a function starts inherits that function’s environment', () => {
  // In a process of its own: jest gives a test a `process` of its own, which node:child_process does not read.
  const script = `
    const { spawnSync } = require('node:child_process');
    const { functionEnvironment, useFunctionEnvironments } = require('./infra/local/env/process-env.ts');
    const { runAsFunction } = require('./infra/local/kernel/function-context.ts');
    useFunctionEnvironments(new Map([['users', functionEnvironment('users', { POWERTOOLS_SERVICE_NAME: 'users' }, new Set(), () => undefined)]]));
    const child = () => spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.env.POWERTOOLS_SERVICE_NAME))'], { encoding: 'utf8' }).stdout;
    process.stdout.write(JSON.stringify({ inside: runAsFunction('users', child), outside: child() }));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: join(__dirname, '..', '..'), encoding: 'utf8', env: { ...process.env, POWERTOOLS_SERVICE_NAME: 'the-process' } });

  expect(JSON.parse(run.stdout)).toEqual({ inside: 'users', outside: 'the-process' });
});

test('each function reads its own configuration: a missing required variable throws a ConfigError naming it, on first use only', async () => {
  const users = runAsFunction('users', () => config());
  const docs = runAsFunction('docs', () => config());

  expect(users).not.toBe(docs);
  expect(runAsFunction('users', () => config())).toBe(users);
  expect(users.tableName).toBe('local-table');
  expect(() => docs.tableName).toThrow(new ConfigError('Missing environment variable TABLE_NAME'));
  expect(() => docs.tableName).toThrow(ConfigError);
});

test('the report is written to the data directory, and read back as the global teardown reads it', async () => {
  await runAsFunction('users', usersHandler);
  reads.record('docs', 'TABLE_NAME');
  reads.write();

  const written = JSON.parse(readFileSync(envReportFile(dir), 'utf8')) as ReturnType<EnvReads['report']>;
  expect(written.functions).toEqual({ users: [{ variable: 'EVENT_TYPE_PREFIX', reads: 1 }], docs: [{ variable: 'TABLE_NAME', reads: 1 }] });
  expect(envReportProblems(written, { localOnly, defaultsMeant }).map((problem) => problem.split(':')[0])).toEqual(['users', 'docs']);
});

describe('the configuration is read a section at a time', () => {
  test('a setting reads only its own variables, on its first access, once', () => {
    const read: string[] = [];
    const env = new Proxy({ TABLE_NAME: 't', EVENT_TYPE_PREFIX: 'com.x', MAIL_FROM: 'a@b.c' } as NodeJS.ProcessEnv, {
      get: (target, name) => (read.push(String(name)), Reflect.get(target, name)),
    });
    const settings = readConfig(env);

    expect(read).toEqual([]);
    expect([settings.tableName, settings.tableName, settings.events.typePrefix, settings.mail.from]).toEqual(['t', 't', 'com.x', 'a@b.c']);
    expect(read).toEqual(['TABLE_NAME', 'EVENT_TYPE_PREFIX', 'MAIL_FROM']);
  });
});
