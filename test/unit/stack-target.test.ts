import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awaitLocalStack, deployedStack, functionEnvironment, localStackInfo, NoStackError, runningLocalStack } from '../../infra/stack-target';
import { localStack } from '../../scripts/sam-event';

// Finding the stack a tool talks to, from the files a local stack and `cdk deploy --outputs-file` write.

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'stack-target-'));
  dirs.push(dir);
  return dir;
};
const write = (dir: string, name: string, value: unknown) => writeFileSync(join(dir, name), JSON.stringify(value));

const bot = (uuid: string) => ({ uuid, name: uuid, personas: [{ uuid: 'p1', name: 'P' }], functions: [{ uuid: 'f1', name: 'F' }], collections: [{ uuid: 'c1', name: 'C' }] });
const info = {
  apiUrl: 'http://127.0.0.1:3000',
  authUrl: 'http://127.0.0.1:3000',
  generativeSubpath: 'gen',
  userSubpath: 'users-area',
  clientId: 'client-1',
  orgs: [{ uuid: 'o1', name: 'acme', admin: { email: 'a@acme.example', password: 'pw' }, environments: [{ uuid: 'e1', name: 'Prod', bots: [bot('b1'), bot('b2')] }] }],
};

/** A data directory as a running local stack leaves it. */
function runningStackDir(): string {
  const dir = dataDir();
  write(dir, 'function-env.json', { users: { TABLE_NAME: 'local-table', BULK_BUCKET_NAME: 'local-bucket', USERS_ONLY: 'x' }, bulk: { TABLE_NAME: 'local-table', BULK_BUCKET_NAME: 'local-bucket' } });
  write(dir, 'stack.json', info);
  return dir;
}

describe('a local stack', () => {
  test('that runs is its description, its addresses and its functions\' environment', () => {
    const dir = runningStackDir();

    const target = runningLocalStack(dir);

    expect(target).toMatchObject({ kind: 'local', apiUrl: info.apiUrl, clientId: 'client-1', subpaths: { generative: 'gen', user: 'users-area' }, bulkBucket: 'local-bucket' });
    expect(functionEnvironment(target)).toEqual({ TABLE_NAME: 'local-table', BULK_BUCKET_NAME: 'local-bucket' });
  });

  test('that is not there says to start one, and the other way when the caller gives one', () => {
    const dir = dataDir();

    expect(() => runningLocalStack(dir)).toThrow(new NoStackError(`No local stack in ${dir}: start it with npm start`));
    expect(() => runningLocalStack(dir, { orElse: 'pass --outputs <file>' })).toThrow(`No local stack in ${dir}: start it with npm start, or pass --outputs <file>`);
  });

  test('that stopped (its function environment left, its description gone) is no stack', () => {
    const dir = dataDir();
    write(dir, 'function-env.json', { users: { TABLE_NAME: 'local-table' } });

    expect(() => runningLocalStack(dir)).toThrow(NoStackError);
  });

  test('that is starting (its lock held by a live process, no description yet) says to wait', () => {
    const dir = dataDir();
    write(dir, 'stack.lock', { pid: process.pid });

    expect(() => runningLocalStack(dir)).toThrow(`The local stack in ${dir} is still starting: try again once it prints its banner`);
  });

  test('sam:event reads it as its first organization, and says to start one rather than fail on a missing file', () => {
    const events = localStack(runningStackDir());

    expect(events.values).toMatchObject({ __REALM__: 'acme', __ORG_UUID__: 'o1', __BOT_UUID__: 'b1', __OTHER_BOT_UUID__: 'b2', __CLIENT_ID__: 'client-1', __BUCKET__: 'local-bucket' });
    expect(() => localStack(join(dataDir(), 'none'))).toThrow(/^No local stack in .*none: start it with npm start, or pass --outputs <file>$/);
  });

  test('counts as started only once it wrote its description after the start', async () => {
    const dir = runningStackDir();
    utimesSync(join(dir, 'stack.json'), new Date(1000), new Date(1000));

    expect(localStackInfo(dir, 5000)).toBeUndefined();
    expect(localStackInfo(dir)).toMatchObject({ clientId: 'client-1' });
    expect(await awaitLocalStack(dir, { alive: () => true, timeoutMs: 100, since: 5000, pollMs: 10 })).toEqual({ failed: 'timeout' });
    expect(await awaitLocalStack(dir, { alive: () => false, timeoutMs: 1000, since: 5000 })).toEqual({ failed: 'exited' });
    expect(await awaitLocalStack(dir, { alive: () => true, timeoutMs: 1000, serves: async () => true })).toMatchObject({ info: { clientId: 'client-1' } });
  });
});

describe('a deployed stack', () => {
  const outputs = {
    TableName: 'table',
    UserPoolId: 'pool',
    UserPoolClientId: 'client',
    SigningKeyArn: 'arn:aws:kms:eu-west-1:1:key/k',
    ApiUrl: 'https://api.example/',
    BulkBucketName: 'bucket',
  };

  test('is its outputs file: addresses, and the functions\' environment with the issuer under the API', () => {
    const dir = dataDir();
    write(dir, 'cdk-outputs.json', { ManagementApi: outputs });

    const target = deployedStack(join(dir, 'cdk-outputs.json'));

    expect(target).toMatchObject({ kind: 'deployed', stackName: 'ManagementApi', apiUrl: 'https://api.example', authUrl: 'https://api.example', clientId: 'client', subpaths: { generative: 'generative', user: 'user-management' } });
    expect(functionEnvironment(target)).toMatchObject({ TABLE_NAME: 'table', SIGNING_KEY: 'kms:arn:aws:kms:eu-west-1:1:key/k', TOKEN_ISSUER: 'https://api.example/auth', BULK_BUCKET_NAME: 'bucket' });
  });

  test('without an outputs file, or lacking an output the functions need, says which', () => {
    const dir = dataDir();
    write(dir, 'partial.json', { ManagementApi: { ...outputs, TableName: undefined } });

    expect(() => deployedStack(join(dir, 'none.json'))).toThrow(`No outputs file at ${join(dir, 'none.json')} (cdk deploy --outputs-file ${join(dir, 'none.json')})`);
    expect(() => functionEnvironment(deployedStack(join(dir, 'partial.json')))).toThrow(new NoStackError('The outputs file has no TableName'));
  });
});
