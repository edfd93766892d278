import { Duration, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { Charset, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import * as path from 'node:path';
import type { PackageFiles } from './group-access';
import { alarmAtLeast, metricsNamespace } from './monitoring';

export interface ServiceFunctionProps {
  /** Resource group: also the Powertools service name. */
  readonly group: string;
  readonly entry: string;
  /** Directory holding package.json and package-lock.json; esbuild resolves modules from it. */
  readonly projectRoot: string;
  readonly logLevel: string;
  readonly environment?: Record<string, string>;
  readonly timeout?: Duration;
  /** Concurrency kept for this function and its cap; unset, it shares the account's unreserved pool. */
  readonly reservedConcurrency?: number;
  /** Files of a package the code reads at run time, copied beside the bundle. */
  readonly packageFiles?: PackageFiles;
}

/**
 * Packages only some routes or requests of a function need, loaded on their first use (`require` of
 * the package's name: YAML bundles, multipart bodies, SCIM resources and paths, `Idempotency-Key`
 * records, the diffs of changes) rather than at cold start. Every bundle leaves them out; the functions
 * named here get each as one file of their asset, `node_modules/<package>/index.js` beside `index.js`,
 * where `require` finds it as it finds the package from the sources (docs/decisions/lighter-functions.md).
 */
const idempotencyRecords = '@aws-lambda-powertools/idempotency';
/** RFC 6902 diffs of an update (`changesBetween`): every function whose changes compare two versions. */
const changeDiffs = 'fast-json-patch';
/**
 * KMS's DER signatures in JOSE form: auth signs tokens; the other functions that take tokens hold the
 * signer for its public key and never sign, but carry the file (3 KB, never read) rather than an
 * exception to the rule that a function ships every package its code can require.
 */
const tokenSignatures = 'ecdsa-sig-formatter';
export const lazyPackages: Readonly<Record<string, readonly string[]>> = {
  // Address checks and change diffs: a sign-in through an organization's identity provider (its token
  // endpoint and keys, called under the webhooks' rules) and the user's link to it.
  auth: ['ipaddr.js', changeDiffs, tokenSignatures],
  agents: ['yaml', idempotencyRecords, changeDiffs, tokenSignatures],
  // csv-parse: the uploads' files, read before a job is accepted (bulk) and row by row as it runs (bulk-worker).
  bulk: ['@fastify/busboy', 'csv-parse', idempotencyRecords, changeDiffs, tokenSignatures],
  'bulk-worker': ['csv-parse', changeDiffs],
  configurations: [idempotencyRecords, changeDiffs, tokenSignatures],
  scim: ['scimmy', idempotencyRecords, changeDiffs, tokenSignatures],
  supervisors: [idempotencyRecords, changeDiffs, tokenSignatures],
  // Address checks: a subscription's creation and change (users), and each delivery (publisher, which
  // loads it as its first delivery starts: a package left out of one bundle is left out of all).
  users: ['ipaddr.js', idempotencyRecords, changeDiffs, tokenSignatures],
  publisher: ['ipaddr.js'],
  // What every token route's chain can reach (Idempotency-Key records, token signatures), though a read of the feed loads neither.
  feed: [idempotencyRecords, tokenSignatures],
};

/**
 * A lazy package the code requires by more than its name: its file is built from an entry of the
 * project that gathers them (so that the package and its subpaths share one copy of its classes),
 * and each subpath is a file beside it that answers that one file (`<subpath>.js`).
 */
export const lazyPackageEntries: Readonly<Record<string, { entry: string; subpaths: readonly string[] }>> = {
  [idempotencyRecords]: { entry: path.posix.join('infra', 'cloud', 'lazy', 'idempotency.cjs'), subpaths: ['dynamodb'] },
};

/**
 * Project files that only some routes or requests load, on first use, as the lazy packages are
 * (docs/decisions/lighter-functions.md): each is a CommonJS file of the sources, `lazy/<name>.cjs`
 * beside the module that requires it by that relative path, which is left external to the bundle and
 * built, with what it requires, into `lazy/<name>.cjs` beside `index.js`, where the same relative
 * `require` finds it. The words of each language: the pages (auth) and the e-mails (mail) load the
 * language they speak. The pages' views: the sign-in flow's and the account page's, loaded by the
 * first page shown (auth; a token request never loads them). The API's description: the reference
 * (docs) builds it on its first request.
 */
const wordsFiles = ['en', 'es', 'ja', 'pt'].map((language) => `shared/kernel/messages/lazy/messages-${language}.cjs`);
export const lazyProjectFiles: Readonly<Record<string, readonly string[]>> = {
  auth: [...wordsFiles, 'shared/app/sign-in/lazy/sign-in-views.cjs', 'shared/app/account/lazy/account-views.cjs'],
  mail: wordsFiles,
  docs: ['shared/edge/docs/lazy/api-description.cjs'],
};

/** Where a function's asset holds a lazy project file: `lazy/<name>.cjs` beside `index.js`. */
export const lazyProjectFile = (outputDir: string, entry: string) => path.posix.join(outputDir, 'lazy', path.posix.basename(entry));

/** The bundle's external pattern for a lazy project file: the relative `require` that loads it, from wherever it stands. */
const lazyProjectExternal = (entry: string) => `*/lazy/${path.posix.basename(entry)}`;

/**
 * How every function is bundled: the options NodejsFunction turns into esbuild's flags below, which
 * `scripts/build-bundles.ts` builds with too. `inject` is relative to the project's root.
 */
export const functionBundling = {
  target: 'node24',
  minify: true,
  sourceMap: true,
  // The map ships beside the bundle for the logger, which maps a logged error's stack with it on the
  // process's first error (shared/kernel/source-mapped-stack.ts); Node's `--enable-source-maps` would
  // read and parse it at every cold start instead. Without the sources' text: stacks need only the mappings.
  sourcesContent: false,
  // Text as UTF-8, not `\uXXXX` escapes: the pages' and e-mails' words in Japanese, Spanish and
  // Portuguese take half the bytes (a Japanese character is 3 bytes in UTF-8, 6 escaped). Node reads
  // a script as UTF-8, in Lambda as anywhere.
  charset: 'utf8',
  // The AWS SDK v3 and its @smithy packages are left to the copy the Node.js 24 runtime ships (CDK's
  // default with cdk.json's sdkV3ExcludeSmithyPackages flag): that halves the bundle, and both come
  // from one source. The lazy packages are files of their own.
  externalModules: [
    '@aws-sdk/*',
    '@smithy/*',
    ...new Set(Object.values(lazyPackages).flat()),
    ...new Set(Object.values(lazyProjectFiles).flat().map(lazyProjectExternal)),
  ],
  // `import.meta.url` in the CommonJS bundle: the bundle's own URL, as in an ES module (esbuild
  // would leave it empty, with a warning); esbuild's own recipe, an injected export.
  inject: [path.join('infra', 'cloud', 'bundle-import-meta.ts')],
  define: { 'import.meta.url': 'bundleImportMetaUrl' },
} as const;

/**
 * esbuild's flags for a lazy package's file: the package (or its entry, `lazyPackageEntries`, under
 * `root`) bundled whole as CommonJS, minified, without a source map (its stack frames are the
 * library's, and a map would be read at its first load); the SDK left to the runtime, as in the bundle.
 */
export const lazyPackageFlags = (packageName: string, outfile: string, root: string): string[] =>
  lazyFileFlags(lazyPackageEntries[packageName] ? path.posix.join(root, lazyPackageEntries[packageName].entry) : packageName, outfile);

/** What every lazy file is built as: `input` bundled whole as CommonJS, minified, the SDK left to the runtime, `extra` flags beside. */
const lazyFileFlags = (input: string, outfile: string, extra: readonly string[] = []): string[] => [
  '--bundle',
  input,
  '--external:@aws-sdk/*',
  '--external:@smithy/*',
  '--platform=node',
  `--target=${functionBundling.target}`,
  '--format=cjs',
  '--minify',
  ...extra,
  `--outfile=${outfile}`,
  '--log-level=warning',
];

/**
 * esbuild's flags for a lazy project file: its entry (under `root`) bundled whole as CommonJS, as the
 * function's bundle is (minified, UTF-8, `import.meta.url` its own), without a source map; the SDK left
 * to the runtime.
 */
export const lazyProjectFlags = (entry: string, outfile: string, root: string): string[] =>
  lazyFileFlags(path.posix.join(root, entry), outfile, [
    `--charset=${functionBundling.charset}`,
    `--inject:${path.posix.join(root, ...functionBundling.inject[0]!.split(path.sep))}`,
    ...Object.entries(functionBundling.define).map(([name, value]) => `--define:${name}=${value}`),
  ]);

/** Where a function's asset holds a lazy package's file. */
export const lazyPackageFile = (outputDir: string, packageName: string) => path.posix.join(outputDir, 'node_modules', packageName, 'index.js');

/** A lazy package's subpath files (`lazyPackageEntries`), each with what it holds: the package's one file. */
export const lazySubpathFiles = (outputDir: string, packageName: string): { file: string; text: string }[] =>
  (lazyPackageEntries[packageName]?.subpaths ?? []).map((subpath) => ({
    file: path.posix.join(outputDir, 'node_modules', packageName, `${subpath}.js`),
    text: "module.exports = require('./index.js');\n",
  }));

/**
 * One resource group's Lambda function with the runtime defaults every group shares: Node.js 24 on
 * arm64, bundled locally by esbuild, its own role and log group, active tracing (Lambda's own segments
 * in X-Ray; no tracing SDK in the bundle), Powertools metrics in the stack's namespace, and error and
 * throttle alarms.
 * Access to other resources comes only through the `bind…` helpers, which also set the matching
 * environment variable.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    // An explicit role instead of the default one, which would carry the AWSLambdaBasicExecutionRole
    // managed policy (logs on every log group of the account): this one may write to its own only.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${props.group} function of the management API`,
    });
    logGroup.grantWrite(role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: path.join(props.projectRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrency,
      role,
      logGroup,
      tracing: Tracing.ACTIVE,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.group,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(this),
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        ...props.environment,
      },
      bundling: {
        minify: functionBundling.minify,
        sourceMap: functionBundling.sourceMap,
        sourcesContent: functionBundling.sourcesContent,
        charset: Charset.UTF8,
        target: functionBundling.target,
        format: OutputFormat.CJS,
        externalModules: [...functionBundling.externalModules],
        forceDockerBundling: false,
        inject: functionBundling.inject.map((file) => path.join(props.projectRoot, file)),
        define: { ...functionBundling.define },
        ...bundlingHooks(props.group, props.packageFiles),
      },
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 24 is the runtime the project targets (docs/architecture.md) and the esbuild target; moving to a newer runtime is ' +
        'a deliberate, tested upgrade, not a side effect of a CDK release adding one.',
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the X-Ray statement added by active tracing: xray:PutTraceSegments and ' +
        'xray:PutTelemetryRecords support no resource-level permissions. test/infra checks that no ' +
        'other statement uses Resource "*".',
    });

    // The stack's AlarmTopic adds the alarm and OK actions to every alarm.
    const period = Duration.minutes(5);
    alarmAtLeast(
      this,
      'ErrorsAlarm',
      this.function.metricErrors({ period, statistic: 'Sum' }),
      `The ${props.group} function failed (unhandled error or timeout)`,
    );
    alarmAtLeast(this, 'ThrottlesAlarm', this.function.metricThrottles({ period, statistic: 'Sum' }), `The ${props.group} function was throttled`);
  }
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Shell steps after esbuild: a package's files copied beside `index.js` (`packageFiles`), and each lazy
 * package of the group built into its file from the installed package, offline, by the project's own
 * esbuild (a dev dependency, the one NodejsFunction bundles with, since Docker bundling is off).
 */
function bundlingHooks(group: string, packageFiles: PackageFiles | undefined) {
  const lazy = lazyPackages[group] ?? [];
  const lazyFiles = lazyProjectFiles[group] ?? [];
  if (!packageFiles && lazy.length === 0 && lazyFiles.length === 0) return {};
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        ...(packageFiles ? copyPackageFiles(packageFiles, inputDir, outputDir) : []),
        ...lazy.flatMap((name) => [
          [path.posix.join(inputDir, 'node_modules', '.bin', 'esbuild'), ...lazyPackageFlags(name, lazyPackageFile(outputDir, name), inputDir)].map(shellQuote).join(' '),
          ...lazySubpathFiles(outputDir, name).map(({ file, text }) => `printf '%s' ${shellQuote(text)} > ${shellQuote(file)}`),
        ]),
        ...lazyFiles.map((entry) =>
          [path.posix.join(inputDir, 'node_modules', '.bin', 'esbuild'), ...lazyProjectFlags(entry, lazyProjectFile(outputDir, entry), inputDir)].map(shellQuote).join(' '),
        ),
      ],
    },
  };
}

/**
 * Copies a package's files into `node_modules/<package>/` beside `index.js`, where the code finds them
 * as it finds the package in the sources: the nearest `node_modules` above it.
 */
function copyPackageFiles({ packageName, files }: PackageFiles, inputDir: string, outputDir: string): string[] {
  const from = path.posix.join(inputDir, 'node_modules', packageName);
  const to = path.posix.join(outputDir, 'node_modules', packageName);
  return [`mkdir -p ${shellQuote(to)}`, ...files.map((file) => `cp ${shellQuote(path.posix.join(from, file))} ${shellQuote(to)}/`)];
}
