import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent, S3Event, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { join, resolve } from 'node:path';
import type { ResourceGroup, Subpaths } from '../../shared/api/routes';
import { envNames, subpathsFromEnv } from '../../shared/config';
import type { Emulators } from './emulators';
import type { LambdaHandler } from './gateway';
import { answerStarting, withGatewayTimeouts } from './gateway-answers';
import { LOCK_FILE, lockDataDir } from './data-dir-lock';
import { startDynamoDBLocalFor } from './emulator-ports';
import type { SeededOrg } from './seed';

/** What `.local/stack.json` describes: written once the stack answers, removed while it starts. */
export interface StackInfo {
  apiUrl: string;
  authUrl: string;
  generativeSubpath: string;
  userSubpath: string;
  clientId: string;
  /** The API reference (Swagger UI over `/openapi.json`). */
  docsUrl: string;
  /** The account page of a realm: `{realm}` stands for the organization's name. */
  accountUrl: string;
  /** JSON list of the e-mails sent (`{ emails }`), kept in the data directory across restarts. */
  mailboxUrl: string;
  /** The same e-mails as a web page. */
  mailboxViewerUrl: string;
  /** JSON list of the change events put on the local EventBridge bus (`{ events }`), kept in the data directory. */
  eventsUrl: string;
  /** The queue e-mails to users wait in for the `mail` function (the local SQS; `…/settled` tells when it has caught up). */
  mailQueueUrl: string;
  /** The emulators' own endpoints, for pointing other tools (AWS CLI, NoSQL Workbench) at them. */
  endpoints: Emulators['endpoints'];
  orgs: SeededOrg[];
}

export interface LocalStackOptions {
  dataDir: string;
  /** Gateway port; 0 takes a free one. */
  port: number;
  /** Discard the data directory's content and seed anew, once the port and the directory are this stack's. */
  fresh?: boolean;
  subpaths?: Partial<Subpaths>;
}

export interface LocalStack {
  info: StackInfo;
  /** The data directory, absolute. */
  dataDir: string;
  stop(): Promise<void>;
}

/** Each function's handler module, named one by one so that a bundler sees them all (`start.mjs`). */
const handlerModules: Record<ResourceGroup, () => Promise<{ handler: unknown }>> = {
  auth: () => import('../../functions/auth/handler'),
  docs: () => import('../../functions/docs/handler'),
  users: () => import('../../functions/users/handler'),
  supervisors: () => import('../../functions/supervisors/handler'),
  agents: () => import('../../functions/agents/handler'),
  configurations: () => import('../../functions/configurations/handler'),
  bulk: () => import('../../functions/bulk/handler'),
  'bulk-worker': () => import('../../functions/bulk-worker/handler'),
  scim: () => import('../../functions/scim/handler'),
  events: () => import('../../functions/events/handler'),
  mail: () => import('../../functions/mail/handler'),
};

/** How long after the stack answers the handler modules nobody has called yet start loading. */
const WARM_AFTER_MS = 1_000;

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`Port ${port} is already in use`);
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error),
    );
    server.listen(port, '127.0.0.1', () => resolvePort((server.address() as AddressInfo).port));
  });
}

/** Empties the data directory but for its lock. */
function emptyDataDir(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (name !== LOCK_FILE) rmSync(join(dataDir, name), { recursive: true, force: true });
  }
}

/**
 * Starts the whole local stack in this process: the emulators, the table, bucket, user pool and console
 * client, the signing key, the demo data, and the gateway in front of the functions' handler modules.
 * The functions read their configuration from the environment, exactly as in Lambda.
 *
 * The data directory is this stack's alone (`DataDirInUseError` when another live stack holds it), and
 * nothing in it is touched before both the directory and the port are held. The gateway listens from
 * the start and answers 503 (`startingAnswer`) until the stack is ready; `stack.json` is written at
 * that moment.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir);

  if (options.subpaths?.generative) process.env[envNames.generativeSubpath] = options.subpaths.generative;
  if (options.subpaths?.user) process.env[envNames.userSubpath] = options.subpaths.user;
  const handlers = {} as Record<ResourceGroup, LambdaHandler>;
  const loads = new Map<ResourceGroup, Promise<LambdaHandler>>();
  let stopping = false;
  let wake = () => undefined as void;
  // As Lambda starts a function on its first invocation: a handler module loads (and compiles) on its
  // group's first request, after the stack answers, so none is on the start-up path.
  const loadHandler = (group: ResourceGroup): Promise<LambdaHandler> => {
    let load = loads.get(group);
    if (!load) {
      load = handlerModules[group]().then(({ handler }) => (handlers[group] = handler as unknown as LambdaHandler));
      loads.set(group, load);
    }
    return load;
  };
  const subpaths = subpathsFromEnv();
  let ready = false;
  // The port is held from the first moment by a server that answers "starting"; the gateway (whose
  // route catalogue takes a few hundred milliseconds to load) takes its requests over once loaded,
  // after the JVM has been started.
  let serve: RequestListener | undefined = undefined;
  const gateway = withGatewayTimeouts(
    createServer((request, response) => (serve ?? answerStarting)(request, response)),
  );
  let port: number;
  try {
    port = await listen(gateway, options.port);
  } catch (error) {
    lock.release();
    throw error;
  }
  const apiUrl = `http://127.0.0.1:${port}`;
  lock.describe(apiUrl);
  if (options.fresh) emptyDataDir(dataDir);
  // Present only while it describes a stack that answers.
  rmSync(join(dataDir, 'stack.json'), { force: true });
  // The JVM takes longest to come up: it starts before this process loads cognito-local, the local IAM
  // checker and the provisioning and seeding modules (seconds of CPU, on the other core).
  const dynamoStarting = startDynamoDBLocalFor(dataDir);
  const [
    { startEmulators },
    { createAsyncInvoker, errorType },
    { enableLocalIam },
    { LOCAL_BUCKET, LOCAL_CREDENTIALS, LOCAL_EVENT_BUS, LOCAL_TABLE, ensureSigningKey, ensureTable, ensureUserPool },
    { createLocalEventBus },
    { startStreamPoller },
    { startLocalSweeps },
    { createLocalQueues, queueUrlOf },
    { startQueuePoller },
    { sesOutagePlugin },
    { addClientPlugin },
    { gatewayListener },
    { resolveRoutes, resourceGroups },
  ] = await Promise.all([
    import('./emulators'),
    import('./invoke'),
    import('./iam'),
    import('./provision'),
    import('./event-bus-endpoint'),
    import('./stream-poller'),
    import('./webhook-sweeps'),
    import('./mail-queue-local'),
    import('./queue-poller'),
    import('./ses-outages'),
    import('../../shared/clients/client-options'),
    import('./gateway'),
    import('../../shared/api/routes'),
  ]).catch(
    async (error: unknown) => {
      await dynamoStarting.then((dynamo) => dynamo.stop()).catch(() => undefined);
      await new Promise<void>((done) => gateway.close(() => done()));
      lock.release();
      throw error;
    },
  );

  serve = gatewayListener(resolveRoutes(subpaths), handlers, { ready: () => ready, initialize: async (group) => void (await loadHandler(group)) });
  // Each function's AWS calls are checked against its role (infra/local/iam); the roles load while the emulators start.
  const localIam = enableLocalIam({ reportDir: dataDir });
  // Tests arm SES outages for a recipient (infra/local/ses-outages.ts) to see the mail queue retry.
  addClientPlugin(sesOutagePlugin());
  // The table is made (or found) as soon as the JVM answers, while the other emulators start.
  const tableReady = dynamoStarting.then((dynamo) => ensureTable(dynamo.endpoint));
  tableReady.catch(() => undefined); // Awaited below; a failure before that point must not go unhandled.
  let emulators: Emulators;
  try {
    emulators = await startEmulators(dataDir, LOCAL_BUCKET, dynamoStarting);
  } catch (error) {
    await new Promise<void>((done) => gateway.close(() => done()));
    lock.release();
    throw error;
  }
  const eventBus = createLocalEventBus(LOCAL_EVENT_BUS, join(dataDir, 'events.jsonl'));
  const queues = createLocalQueues(dataDir);
  let poller: ReturnType<typeof startStreamPoller> | undefined;
  let mailPoller: { stop(): Promise<void> } | undefined;
  let sweeps: { stop(): Promise<void> } | undefined;
  const stopEventing = async () => {
    await poller?.stop();
    await mailPoller?.stop();
    await sweeps?.stop();
    await new Promise<void>((done) => {
      eventBus.server.closeAllConnections();
      eventBus.server.close(() => done());
    });
    queues.server.closeAllConnections();
    await new Promise<void>((done) => queues.server.close(() => done()));
    await queues.close();
  };
  try {
    const eventBusUrl = `http://127.0.0.1:${await listen(eventBus.server, 0)}`;
    const queuesUrl = `http://127.0.0.1:${await listen(queues.server, 0)}`;
    const mailQueueUrl = queueUrlOf(queues, queuesUrl);
    const [pool] = await Promise.all([ensureUserPool(emulators.endpoints.cognito, dataDir), tableReady]);
    // The functions' environment, as the CDK bind helpers set it in AWS (names from shared/config.ts).
    const functionEnv: Record<string, string> = {
      [envNames.region]: 'us-east-1',
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      [envNames.tableName]: LOCAL_TABLE,
      [envNames.bulkBucket]: LOCAL_BUCKET,
      [envNames.userPoolId]: pool.userPoolId,
      [envNames.userPoolClientId]: pool.clientId,
      [envNames.signingKey]: `file:${ensureSigningKey(dataDir)}`,
      [envNames.tokenIssuer]: `${apiUrl}/auth`,
      [envNames.generativeSubpath]: subpaths.generative,
      [envNames.userSubpath]: subpaths.user,
      [envNames.dynamodbEndpoint]: emulators.endpoints.dynamodb,
      [envNames.cognitoEndpoint]: emulators.endpoints.cognito,
      [envNames.s3Endpoint]: emulators.endpoints.s3,
      [envNames.sesEndpoint]: emulators.endpoints.ses,
      [envNames.eventbridgeEndpoint]: eventBusUrl,
      [envNames.eventBusName]: LOCAL_EVENT_BUS,
      [envNames.sqsEndpoint]: queuesUrl,
      [envNames.mailQueueUrl]: mailQueueUrl,
      // One poller drains the mail queue here (AWS: two invocations at once, each at half the rate).
      [envNames.mailConsumers]: '1',
      // The local stack is on loopback itself: webhook receivers at http://127.0.0.1:<port> are allowed (never in AWS).
      [envNames.webhookAllowLoopbackHttp]: 'true',
      // Retries a laptop sees within seconds (AWS: 5 s, doubling).
      [envNames.webhookFirstRetryMs]: '1000',
      // A sweep looks for due deliveries 10 times a second (AWS: 4), so a laptop's deliveries leave at once.
      [envNames.webhookPollMs]: '100',
      [envNames.mailFrom]: 'Management API <no-reply@management-api.local>',
      [envNames.signInUrl]: `${apiUrl}/auth/realms/{realm}/account?kc_locale={locale}`,
    };
    Object.assign(process.env, functionEnv);
    // The demo data is written through the services, not the handlers, while the local IAM checker reads the roles.
    const seedFile = join(dataDir, 'seed.json');
    const seeding = existsSync(seedFile)
      ? Promise.resolve(JSON.parse(readFileSync(seedFile, 'utf8')) as SeededOrg[])
      : import('./seed').then(async ({ seedDemo }) => {
          const seeded = await seedDemo();
          writeFileSync(seedFile, JSON.stringify(seeded, null, 2));
          return seeded;
        });
    seeding.catch(() => undefined); // Awaited below; a failure before that point must not go unhandled.
    await localIam.ready;
    /** A handler run as the function's event source calls it (the event, and the invocation's context): its module loaded on the first event. */
    const invokerOf =
      <E, R>(group: ResourceGroup) =>
      async (event: E, context?: Context): Promise<R> =>
        ((await loadHandler(group)) as unknown as (event: E, context?: Context) => Promise<R>)(event, context);
    // As the S3 notification in AWS: an object created under `uploads/` invokes the bulk worker
    // asynchronously, with Lambda's retries on a function error and then its on-failure path.
    // The worker's on-failure path as in AWS: the destination record (the S3 event as its request
    // payload) reaches the same function as one SQS message from the failure queue, which marks the job failed.
    const worker = invokerOf<S3Event | SQSEvent, SQSBatchResponse | void>('bulk-worker');
    const invokeWorker = createAsyncInvoker<S3Event>({
      group: 'bulk-worker',
      handler: (event) => worker(event) as Promise<void>,
      onFailure: async (event, error, attempts) => {
        const record = {
          version: '1.0',
          timestamp: new Date().toISOString(),
          requestContext: { requestId: randomUUID(), functionArn: 'bulk-worker', condition: 'RetriesExhausted', approximateInvokeCount: attempts },
          requestPayload: event,
          responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
          responsePayload: { errorType: errorType(error) },
        };
        const message = { messageId: randomUUID(), body: JSON.stringify(record), eventSource: 'aws:sqs' };
        const settled = await worker({ Records: [message] } as unknown as SQSEvent);
        if (settled && settled.batchItemFailures.length > 0) {
          const keys = event.Records.map((r) => r.s3.object.key);
          console.error(JSON.stringify({ level: 'ERROR', source: 'local-lambda', function: 'bulk-worker', condition: 'FailureNotSettled', keys }));
        }
      },
    });
    emulators.onS3Event((event) => {
      if (!event.Records?.some((record) => record.eventName.startsWith('ObjectCreated') && record.s3.object.key.startsWith('uploads/'))) return;
      void invokeWorker(event);
    });

    const orgs = await seeding;

    // As the table stream's event source mapping in AWS: each committed audit event reaches the `events` function.
    const publisher = invokerOf<DynamoDBStreamEvent, DynamoDBBatchResponse>('events');
    poller = startStreamPoller({
      endpoint: emulators.endpoints.dynamodb,
      tableName: LOCAL_TABLE,
      credentials: LOCAL_CREDENTIALS,
      handler: (event) => publisher(event),
      checkpointFile: join(dataDir, 'stream-checkpoints.json'),
      deadLetterFile: join(dataDir, 'events-dead-letters.jsonl'),
      // An idle stream is read 10 times a second (Lambda's pollers: about 4), for a laptop's latency.
      pollMs: 100,
    });

    // As the queue's event source mapping in AWS: the `mail` function receives the queued e-mails, ten at a time.
    mailPoller = startQueuePoller({
      queueUrl: mailQueueUrl,
      endpoint: queuesUrl,
      credentials: LOCAL_CREDENTIALS,
      functionName: 'mail',
      handler: invokerOf<SQSEvent, SQSBatchResponse>('mail'),
      batchSize: 10,
    });

    // As the schedule in AWS: sweeps send the due webhook deliveries, one after the other (shorter here, so the stack stops promptly).
    const sweeper = startLocalSweeps(invokerOf('events') as Parameters<typeof startLocalSweeps>[0]);
    sweeps = sweeper;

    const info: StackInfo = {
      apiUrl,
      authUrl: apiUrl,
      generativeSubpath: subpaths.generative,
      userSubpath: subpaths.user,
      clientId: pool.clientId,
      docsUrl: `${apiUrl}/docs`,
      accountUrl: `${apiUrl}/auth/realms/{realm}/account`,
      mailboxUrl: emulators.mailboxUrl,
      mailboxViewerUrl: emulators.mailboxViewerUrl,
      eventsUrl: `${eventBusUrl}/events`,
      mailQueueUrl,
      endpoints: emulators.endpoints,
      orgs,
    };
    // For tools that run handler modules against this stack (the events test, the operator CLI).
    writeFileSync(join(dataDir, 'function-env.json'), JSON.stringify(functionEnv, null, 2));
    ready = true;
    writeFileSync(join(dataDir, 'stack.json'), JSON.stringify(info, null, 2));
    // Off the start-up path: the S3 and SES emulators (a client calling either meanwhile waits), then,
    // once the first requests have had the process to themselves, the other handler modules one at a
    // time, so that a module that fails to load is reported now and no developer's first call waits.
    const deferred = emulators.startDeferred().catch((error: unknown) => {
      console.error(JSON.stringify({ level: 'ERROR', source: 'local-stack', message: 'the S3 or SES emulator failed to start; requests to it are refused', errorType: errorType(error) }));
    });
    const warming = (async () => {
      await deferred;
      if (stopping) return;
      await new Promise<void>((resolveLater) => {
        const timer = setTimeout(resolveLater, WARM_AFTER_MS);
        wake = () => {
          clearTimeout(timer);
          resolveLater();
        };
      });
      for (const group of resourceGroups) {
        if (stopping) return;
        await loadHandler(group).catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          console.error(JSON.stringify({ level: 'ERROR', source: 'local-stack', function: group, message: `the handler module failed to load: its requests answer 500 (${message})` }));
        });
      }
    })();
    return {
      info,
      dataDir,
      stop: async () => {
        stopping = true;
        wake();
        await warming;
        await new Promise<void>((done) => {
          gateway.closeAllConnections();
          gateway.close(() => done());
        });
        await stopEventing();
        await emulators.stop();
        // It describes a stack that answers: gone with it, so that a reader never finds a stopped stack's URLs.
        rmSync(join(dataDir, 'stack.json'), { force: true });
        lock.release();
      },
    };
  } catch (error) {
    gateway.closeAllConnections();
    gateway.close();
    await stopEventing();
    await emulators.stop();
    lock.release();
    throw error;
  }
}
