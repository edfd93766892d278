import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionBundling, lazyPackages } from '../../infra/cloud/service-function';
import { buildBundles, externalPackagesOf, packagesIn, type BundleReport } from '../../scripts/build-bundles';
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
/** Access tokens: verified (aws-jwt-verify) by every function that takes them, signed by auth (KMS's DER signature to JOSE). */
const tokens = ['aws-jwt-verify', 'ecdsa-sig-formatter', 'safe-buffer'];
/** `Idempotency-Key`: Powertools' idempotency records. */
const idempotency = ['@aws-lambda-powertools/idempotency'];
/**
 * The audit events' `changes` (RFC 6902 diffs). auth and scim write audit events without changes, yet
 * carry it: `shared/domain/audit/audit-event.ts` imports the whole package beside `auditWrites`.
 */
const auditChanges = ['fast-json-patch'];
/** Standard Webhooks signatures, made by publisher; users only makes and rotates secrets (`signing-secrets.ts`). */
const webhookSignatures = ['@stablelib/base64', 'fast-sha256', 'standardwebhooks'];
/** The event functions' records (queues and streams). */
const records = ['@aws-lambda-powertools/batch'];

const carried: Record<ResourceGroup, string[]> = {
  auth: [...http, ...tokens, ...auditChanges],
  // The API reference: the catalogue's schemas and words, nothing of the stack's data.
  docs: http,
  users: [...http, ...tokens, ...idempotency, ...auditChanges],
  supervisors: [...http, ...tokens, ...idempotency, ...auditChanges],
  agents: [...http, ...tokens, ...idempotency, ...auditChanges],
  configurations: [...http, ...tokens, ...idempotency, ...auditChanges],
  bulk: [...http, ...tokens, ...idempotency, ...auditChanges],
  'bulk-worker': [...chain, ...records, ...auditChanges, 'zod'],
  scim: [...http, ...tokens, ...idempotency, ...auditChanges],
  publisher: [...chain, ...records, ...auditChanges, ...webhookSignatures],
  mail: [...chain, ...records, 'zod'],
};

/** What Lambda's Node.js runtime provides, which no bundle carries. */
const fromRuntime = (name: string) => name.startsWith('@aws-sdk/') || name.startsWith('@smithy/');
const lazyNames = new Set(Object.values(lazyPackages).flat());

/** The operations of a group that read a multipart body, the one use of busboy. */
const multipartOperations = (group: string) => catalogue.filter((operation) => operation.group === group && operation.request?.multipart).map((operation) => operation.id);

let dir: string;
let reports: Map<string, BundleReport>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bundle-packages-'));
  reports = new Map((await buildBundles({ dir })).map((report) => [report.group, report]));
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const report = (group: string) => reports.get(group)!;

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
    expect(packagesIn(lazy.metafile)).toEqual([lazy.packageName]);
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
  // A webhook's addresses, checked when a subscription is saved (users) and before each delivery (publisher).
  for (const group of ['users', 'publisher']) {
    expect((load(group, 'ipaddr.js') as { parse: (address: string) => { range: () => string } }).parse('10.0.0.1').range()).toBe('private');
  }
});
