import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Subpaths } from '../../shared/edge/api/routes';
import { envNames, subpathsFromEnv } from '../../shared/kernel/config';
import { LOCK_FILE, lockDataDir } from './data-dir-lock';
import { previousPorts, rememberPort, startDynamoDBLocalFor } from './emulator-ports';
import { holdGatewayPort } from './kernel/gateway-port';
import type { SeededOrg } from './seed';
import { Teardown } from './kernel/teardown';
import { loadTemplate } from './synth/template-source';
import { LOCAL_REGION } from './kernel/local-account';

export { PortInUseError } from './kernel/gateway-port';

/** The S3 and SES emulators start this long after the stack answers, so that a client's first requests are not queued behind them. */
const DEFERRED_START_MS = 1_500;

/** What `.local/stack.json` describes: written once the stack answers, removed while it starts. */
export type StackInfo = Awaited<ReturnType<typeof startServices>>;

export interface LocalStackOptions {
  dataDir: string;
  /** Gateway port; 0 takes a free one. */
  port: number;
  /** Discard the data directory's content and seed anew, once the port and the directory are this stack's. */
  fresh?: boolean;
  subpaths?: Partial<Subpaths>;
  /** Told what the start waits on now (`npm start` says it while a first start builds its caches). */
  progress?: (step: string) => void;
}

/** Empties the data directory but for its lock. */
function emptyDataDir(dataDir: string): void {
  for (const name of readdirSync(dataDir)) if (name !== LOCK_FILE) rmSync(join(dataDir, name), { recursive: true, force: true });
}

/** The demo data, written through the services (not the handlers), once per data directory. */
async function seeded(dataDir: string): Promise<SeededOrg[]> {
  const seedFile = join(dataDir, 'seed.json');
  if (existsSync(seedFile)) return JSON.parse(readFileSync(seedFile, 'utf8')) as SeededOrg[];
  const { seedDemo } = await import('./seed');
  const orgs = await seedDemo();
  writeFileSync(seedFile, JSON.stringify(orgs, null, 2));
  return orgs;
}

/**
 * Starts the whole local stack in this process (docs/local-stack.md). Nothing in the data directory is
 * touched before both it and the port are held. Each service, once started, hands its stop to one
 * teardown list, which a stop, or a start that fails part-way, runs in reverse.
 */
export async function startLocalStack(options: LocalStackOptions) {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const teardown = new Teardown();
  const lock = lockDataDir(dataDir);
  teardown.add('data directory lock', () => lock.release());
  try {
    // `dataDir` absolute.
    return { info: await startServices(options, dataDir, lock.describe.bind(lock), teardown), dataDir, stop: () => teardown.run() };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}

async function startServices(options: LocalStackOptions, dataDir: string, describeLock: (apiUrl: string) => void, teardown: Teardown) {
  if (options.subpaths?.generative) process.env[envNames.generativeSubpath] = options.subpaths.generative;
  if (options.subpaths?.user) process.env[envNames.userSubpath] = options.subpaths.user;
  const subpaths = subpathsFromEnv();
  const step = options.progress ?? (() => undefined);
  let ready = false;
  const gatewayPort = await holdGatewayPort(options.port, teardown);
  const { apiUrl } = gatewayPort;
  describeLock(apiUrl);
  if (options.fresh) emptyDataDir(dataDir);
  // Present only while it describes a stack that answers.
  rmSync(join(dataDir, 'stack.json'), { force: true });
  // The JVM, slowest to come up, starts before the other modules load; the template is read meanwhile.
  const dynamoStarting = startDynamoDBLocalFor(dataDir);
  // Read before the emulators write their ports over the file.
  const demoSsoPort = previousPorts(dataDir).oidc;
  teardown.add('DynamoDB Local', () => dynamoStarting.then((dynamo) => dynamo.stop(), () => undefined));
  const template = loadTemplate();
  let templateRead = false;
  template.then(() => (templateRead = true), () => undefined); // Awaited below; a failure before that point must not go unhandled.
  step('starting DynamoDB Local and the emulators, reading the CDK template (synthesized after an install or a change to infra/cloud)');
  const { startEmulators } = await import('./emulators');
  const { enableLocalIam } = await import('./iam');
  const { LOCAL_BUCKET, LOCAL_CREDENTIALS, LOCAL_EVENT_BUS, LOCAL_TABLE, ensureSigningKey, ensureTable, ensureUserPool } = await import('./provision');
  const { startLocalEventBridge } = await import('./eventbridge-endpoint');
  const { startLocalKms, sealingKeyArns } = await import('./kms-endpoint');
  const { startLocalQueues } = await import('./deployment/local-queues');
  const { useStackEnvironments } = await import('./env/stack-environments');
  const { writeFunctionEnvironments } = await import('./env/function-env-file');
  const { startEventSources } = await import('./event-sources');
  const { handlerModulesOf } = await import('./handler-modules');
  const { sesOutagePlugin } = await import('./ses-outages');
  const { addClientPlugin } = await import('../../shared/adapters/clients/client-options');
  const { gatewayListener } = await import('./gateway');
  const { resolveRoutes } = await import('../../shared/edge/api/routes');
  const { referenced } = await import('./template/cfn');
  const { startDemoSso, ensureDemoSsoRegistration, DEMO_SSO } = await import('./demo-sso');

  // Each function's AWS calls are checked against its role (infra/local/iam); the roles load while the emulators start.
  const localIam = enableLocalIam({ reportDir: dataDir, template });
  // Tests arm SES outages for a recipient (infra/local/ses-outages.ts) to see the mail queue retry.
  addClientPlugin(sesOutagePlugin());
  // The table is made (or found) as soon as the JVM answers, while the other emulators start.
  const tableReady = dynamoStarting.then((dynamo) => ensureTable(dynamo.endpoint));
  tableReady.catch(() => undefined); // Awaited below; a failure before that point must not go unhandled.
  const emulators = await startEmulators(dataDir, LOCAL_BUCKET, dynamoStarting);
  teardown.add('emulators', () => emulators.stop());
  // The demo OpenID provider starts beside the rest; its client's redirect URI is the broker endpoint of its organization's realm.
  const demoSsoStarting = startDemoSso(demoSsoPort, `${apiUrl}/auth/realms/${DEMO_SSO.realm}/broker/${DEMO_SSO.alias}/endpoint`);
  demoSsoStarting.catch(() => undefined); // Awaited below; a failure before that point must not go unhandled.
  teardown.add('demo OpenID provider', () => demoSsoStarting.then((demo) => demo.stop(), () => undefined));

  step('starting the event bus, the queues and the local KMS');
  const eventBus = await startLocalEventBridge(LOCAL_EVENT_BUS, join(dataDir, 'eventbridge.jsonl'), teardown);

  if (!templateRead) step('synthesizing the CDK template (once after an install or a change to infra/cloud; cached in node_modules/.cache)');
  const { deployment } = await template;
  step('provisioning the table, the user pool, the queues and the keys');
  const modules = handlerModulesOf();
  const timeoutMs = (group: string) => deployment.functions.find((fn) => fn.group === group)!.timeoutSeconds * 1000;
  gatewayPort.serveWith(
    gatewayListener(resolveRoutes(subpaths), modules.handlers, { ready: () => ready, initialize: async (group) => void (await modules.load(group)), functionTimeoutMs: timeoutMs }),
  );
  const queues = await startLocalQueues(deployment, dataDir, teardown);
  const kms = await startLocalKms(join(dataDir, 'sealing-keys.json'), sealingKeyArns(deployment), teardown);

  const [pool] = await Promise.all([ensureUserPool(emulators.endpoints.cognito, dataDir), tableReady]);
  const environments = useStackEnvironments(
    deployment,
    {
      apiUrl,
      subpaths,
      tableName: LOCAL_TABLE,
      bucketName: LOCAL_BUCKET,
      eventBusName: LOCAL_EVENT_BUS,
      userPoolId: pool.userPoolId,
      userPoolClientId: pool.clientId,
      signingKeyFile: ensureSigningKey(dataDir),
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      endpoints: { ...emulators.endpoints, eventbridge: eventBus.url, sqs: queues.endpoint, kms: kms.url },
      queueUrlOf: (reference) => queues.urlOf(referenced(reference) ?? ''),
      processEnv: process.env,
    },
    dataDir,
  );
  teardown.add('function environments', () => environments.stop());
  localIam.resolveWith(environments.tools);
  // The token and users functions, which a client's first requests reach, load while the set-up below waits on DynamoDB Local.
  for (const group of ['auth', 'users'] as const) modules.load(group).catch(() => undefined);
  step(existsSync(join(dataDir, 'seed.json')) ? 'reading the IAM roles' : 'seeding the demo organizations');
  // The demo data is written while the local IAM checker reads the roles.
  const [orgs] = await Promise.all([seeded(dataDir), localIam.ready]);
  step('registering the demo OpenID provider');
  const demoSsoServer = await demoSsoStarting;
  rememberPort(dataDir, 'oidc', demoSsoServer.port);
  const demoSso = await ensureDemoSsoRegistration(orgs, demoSsoServer.issuer);
  // The set-up's AWS calls (the seeding's expected conditional-check failures among them) are no function's.
  (await import('../../shared/kernel/metrics')).discardAwsCalls();

  const eventSources = startEventSources({
    deployment,
    handlerOf: modules.handlerOf,
    queues,
    table: { endpoint: emulators.endpoints.dynamodb, name: LOCAL_TABLE },
    credentials: LOCAL_CREDENTIALS,
    onS3Event: emulators.onS3Event,
    dataDir,
  });
  teardown.add('event sources', () => eventSources.stop());

  const info = {
    apiUrl,
    authUrl: apiUrl,
    generativeSubpath: subpaths.generative,
    userSubpath: subpaths.user,
    clientId: pool.clientId,
    /** The API reference (Swagger UI over `/openapi.json`). */
    docsUrl: `${apiUrl}/docs`,
    /** The account page of a realm: `{realm}` stands for the organization's name. */
    accountUrl: `${apiUrl}/auth/realms/{realm}/account`,
    /** The e-mails sent, as JSON (`{ emails }`) and as a web page, kept across restarts. */
    mailboxUrl: emulators.mailboxUrl,
    mailboxViewerUrl: emulators.mailboxViewerUrl,
    /** The change events put on the local EventBridge bus (`{ events }`), kept across restarts. */
    eventsUrl: `${eventBus.url}/events`,
    /** The local SQS queue of e-mails to users, for the `mail` function (`…/settled` tells when it has caught up). */
    mailQueueUrl: environments.tools[envNames.mailQueueUrl] ?? '',
    /** The emulators' own endpoints, for other tools (AWS CLI, NoSQL Workbench). */
    endpoints: emulators.endpoints,
    orgs,
    demoSso,
  };
  writeFunctionEnvironments(dataDir, environments.functions);
  ready = true;
  writeFileSync(join(dataDir, 'stack.json'), JSON.stringify(info, null, 2));
  // It describes a stack that answers: gone first, so that a reader never finds a stopping stack's URLs.
  teardown.add('stack.json', () => rmSync(join(dataDir, 'stack.json'), { force: true }));
  // Off the start-up path: the S3 and SES emulators (a client calling either meanwhile waits), then the handler modules.
  const stopping = new AbortController();
  const deferred = delay(DEFERRED_START_MS, undefined, { signal: stopping.signal }).then(
    () => emulators.startDeferred().catch((error: unknown) => {
      console.error(JSON.stringify({ level: 'ERROR', source: 'local-stack', message: 'the S3 or SES emulator failed to start; requests to it are refused', errorType: error instanceof Error ? error.name : typeof error }));
    }),
    () => undefined, // The stack stopped before they started.
  );
  const warming = modules.warm(deferred);
  teardown.add('handler modules warming', () => warming.stop());
  teardown.add('deferred emulators', () => stopping.abort());
  teardown.add('gateway', () => gatewayPort.stopServing());
  return info;
}
