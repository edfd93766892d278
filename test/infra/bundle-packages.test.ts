import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionBundling, lazyPackages } from '../../infra/cloud/service-function';
import { buildBundles, copyOfFreshBundles, externalPackagesOf, packagesIn, projectRoot, type BundleReport } from '../../scripts/build-bundles';
import { catalogue } from '../../shared/edge/api/catalogue';
import { resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';

/**
 * The npm packages each function's bundle carries, read from esbuild's metafile of the bundle the
 * stack deploys (`scripts/build-bundles.ts` builds it as NodejsFunction does). A module that pulls a
 * package into a function that never uses it fails here; so does a package a function no longer
 * carries, so that these lists stay true.
 */

/** Every function's chain: Powertools' logger and metrics, middy. */
const chain = ['@aws-lambda-powertools/commons', '@aws-lambda-powertools/logger', '@aws-lambda-powertools/metrics', '@aws/lambda-invoke-store', '@middy/core'];
/** The HTTP functions' chain: middy's HTTP middlewares and router, zod for every request and answer. */
const http = [...chain, '@middy/http-event-normalizer', '@middy/http-header-normalizer', '@middy/http-json-body-parser', '@middy/http-router', '@middy/http-security-headers', '@middy/util', 'zod'];
/**
 * Access tokens: verified (aws-jwt-verify) by every function that takes them. Signing them (KMS's DER
 * signature to JOSE, ecdsa-sig-formatter), `Idempotency-Key` records (Powertools' idempotency) and the
 * audit events' RFC 6902 diffs (fast-json-patch) are lazy packages: in no bundle.
 */
const tokens = ['aws-jwt-verify'];
/** Standard Webhooks signatures, made by publisher; users only makes and rotates secrets (`signing-secrets.ts`). */
const webhookSignatures = ['@stablelib/base64', 'fast-sha256', 'standardwebhooks'];
/** The event functions' records (queues and streams). */
const records = ['@aws-lambda-powertools/batch'];

/** The realm's endpoints a page on another origin reads (CORS): the auth function's alone. */
const crossOrigin = ['@middy/http-cors'];

const carried: Record<ResourceGroup, string[]> = {
  auth: [...http, ...tokens, ...crossOrigin],
  // The API reference: the catalogue's schemas and words, nothing of the stack's data.
  docs: http,
  users: [...http, ...tokens],
  supervisors: [...http, ...tokens],
  agents: [...http, ...tokens],
  configurations: [...http, ...tokens],
  bulk: [...http, ...tokens],
  'bulk-worker': [...chain, ...records, 'zod'],
  scim: [...http, ...tokens],
  publisher: [...chain, ...records, ...webhookSignatures],
  mail: [...chain, ...records, 'zod'],
  feed: [...http, ...tokens],
};

/** What Lambda's Node.js runtime provides, which no bundle carries. */
const fromRuntime = (name: string) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/');
const lazyNames = new Set(Object.values(lazyPackages).flat());
/** The packages a lazy package's file holds besides it: its own dependencies, which no bundle needs. */
const lazyDependencies: Record<string, string[]> = {
  '@aws-lambda-powertools/idempotency': ['@aws-lambda-powertools/commons', '@aws-lambda-powertools/jmespath', '@aws/lambda-invoke-store'],
  'ecdsa-sig-formatter': ['safe-buffer'],
};

/** The operations of a group that read a multipart body, the one use of busboy. */
const multipartOperations = (group: string) => catalogue.filter((operation) => operation.group === group && operation.request?.multipart).map((operation) => operation.id);

let dir: string;
let reports: Map<string, BundleReport>;

beforeAll(async () => {
  // The bundles `npm run build:bundles` wrote, copied, when they are what the sources make now; else built here.
  const fresh = copyOfFreshBundles(tmpdir());
  dir = fresh?.dir ?? mkdtempSync(join(tmpdir(), 'bundle-packages-'));
  reports = new Map((fresh?.reports ?? (await buildBundles({ dir }))).map((report) => [report.group, report]));
  // The SDK as Lambda's runtime provides it to the code in /var/task: found outside the function's asset.
  mkdirSync(join(dir, 'node_modules'));
  for (const scope of ['@aws-sdk', '@smithy']) symlinkSync(join(projectRoot, 'node_modules', scope), join(dir, 'node_modules', scope));
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const report = (group: string) => reports.get(group)!;
/** A function's built `index.js`. */
const r = (group: string) => report(group).file;

test.each(resourceGroups)('%s carries the packages it uses and no other', (group) => {
  expect(packagesIn(report(group).metafile)).toEqual([...new Set(carried[group])].sort());
});

test.each(resourceGroups)("%s requires at run time only the runtime's SDK and the lazy packages, and ships each it loads", (group) => {
  const external = externalPackagesOf(report(group).metafile).filter((name) => !fromRuntime(name));
  const shipped = report(group).lazy.map((lazy) => lazy.packageName);
  expect(external.filter((name) => !lazyNames.has(name))).toEqual([]);
  expect(shipped).toEqual([...(lazyPackages[group] ?? [])]);
  // A lazy file no code of the function requires would be dead weight.
  for (const name of shipped) expect(external).toContain(name);
  // Every chain can reach the multipart parser; only a function with a multipart operation loads busboy.
  for (const name of external.filter((name) => !shipped.includes(name))) {
    expect(name).toBe('@fastify/busboy');
    expect(multipartOperations(group)).toEqual([]);
  }
});

test('the functions with a multipart operation ship busboy, and only they', () => {
  const withMultipart = resourceGroups.filter((group) => multipartOperations(group).length > 0);
  const withBusboy = resourceGroups.filter((group) => report(group).lazy.some((lazy) => lazy.packageName === '@fastify/busboy'));
  expect(withBusboy).toEqual(withMultipart);
  expect(withMultipart).toEqual(['bulk']);
});

test('a lazy file is its package alone, left out of every bundle, and loads as the package does', async () => {
  const lazyFiles = [...reports.values()].flatMap((r) => r.lazy);
  expect([...new Set(lazyFiles.map((lazy) => lazy.packageName))].sort()).toEqual([...lazyNames].sort());
  for (const lazy of lazyFiles) {
    expect(packagesIn(lazy.metafile)).toEqual([lazy.packageName, ...(lazyDependencies[lazy.packageName] ?? [])].sort());
    expect(functionBundling.externalModules).toContain(lazy.packageName);
    for (const r of reports.values()) expect(packagesIn(r.metafile)).not.toContain(lazy.packageName);
  }
  // The bundle's `require` of the package finds its own file first, outside the project as in /var/task.
  for (const r of reports.values()) {
    for (const lazy of r.lazy) expect(createRequire(r.file).resolve(lazy.packageName)).toBe(lazy.file);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built files, as Lambda's require loads them
  const load = (group: string, name: string) => require(report(group).lazy.find((lazy) => lazy.packageName === name)!.file) as Record<string, unknown>;
  expect((load('agents', 'yaml') as { parse: (text: string) => unknown }).parse('formatVersion: 1')).toEqual({ formatVersion: 1 });
  expect((load('scim', 'scimmy') as { default: object }).default).toHaveProperty('Schemas.User');
  expect(typeof load('bulk', '@fastify/busboy')).toBe('function');
  // The uploads' CSV files: read before a job is accepted (bulk) and as it runs (bulk-worker).
  for (const group of ['bulk', 'bulk-worker']) {
    const { parse } = load(group, 'csv-parse') as { parse: (text: string, options: object, callback: (error: unknown, rows: unknown) => void) => void };
    const rows = await new Promise((resolve, reject) => parse('a,b\n1,2\n', {}, (error, records) => (error ? reject(error as Error) : resolve(records))));
    expect(rows).toEqual([['a', 'b'], ['1', '2']]);
  }
  // Powertools' idempotency and its DynamoDB store: one file, which the store's subpath answers too.
  for (const group of ['users', 'supervisors', 'agents', 'configurations', 'bulk', 'scim']) {
    const lazy = report(group).lazy.find((file) => file.packageName === '@aws-lambda-powertools/idempotency')!;
    const library = load(group, '@aws-lambda-powertools/idempotency');
    expect(typeof library.makeIdempotent).toBe('function');
    expect(typeof library.DynamoDBPersistenceLayer).toBe('function');
    const stores = createRequire(r(group)).resolve('@aws-lambda-powertools/idempotency/dynamodb');
    expect(stores).not.toBe(lazy.file);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built subpath file, as Lambda's require loads it
    expect(require(stores)).toBe(library);
  }
  // The diffs of changes, in every function whose changes compare versions.
  for (const group of resourceGroups.filter((name) => lazyPackages[name]?.includes('fast-json-patch'))) {
    const { compare } = load(group, 'fast-json-patch') as { compare: (a: object, b: object) => unknown };
    expect(compare({ a: 1 }, { a: 2 })).toEqual([{ op: 'replace', path: '/a', value: 2 }]);
  }
  // A KMS signature (DER) in JOSE form: 64 bytes of r and s.
  const { derToJose } = load('auth', 'ecdsa-sig-formatter') as { derToJose: (der: Buffer, alg: string) => string };
  const der = Buffer.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02]);
  expect(Buffer.from(derToJose(der, 'ES256'), 'base64url')).toHaveLength(64);
  // A webhook's addresses, checked when a subscription is saved (users) and before each delivery (publisher).
  for (const group of ['users', 'publisher']) {
    expect((load(group, 'ipaddr.js') as { parse: (address: string) => { range: () => string } }).parse('10.0.0.1').range()).toBe('private');
  }
});
