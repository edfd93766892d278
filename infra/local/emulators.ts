import { constants as bufferConstants } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Event } from 'aws-lambda';
import type * as SesV2Local from 'aws-ses-v2-local';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../cloud/project-root';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './kernel/local-account';
import { localSesAccount } from './ses-account';
import { withCognitoQuotas } from './cognito-quotas';
import { DateClock, LambdaService, MessagesService, TriggersService } from 'cognito-local/lib/services';
import type { DynamoDBLocal } from './dynamodb-local';
import type { CryptoService } from 'cognito-local/lib/services/crypto';
import { holdPort, HOST, portIfFree, portsFile, previousPorts, type EmulatorName, type HeldPort } from './emulator-ports';
import { closeServer } from './kernel/gateway-port';
import { Teardown } from './kernel/teardown';
import { LOCAL_CREDENTIALS } from './provision';
import { s3Front } from './s3-post-policy';
import { keepMailboxIn } from './ses-mailbox';
import { routeSesOutages } from './ses-outages';
import { CognitoServiceFactoryImpl, type CognitoService } from 'cognito-local/lib/services/cognitoService';
import { JournaledDataStoreFactory } from './cognito-store';
import { ConsoleMessageSender } from 'cognito-local/lib/services/messageDelivery/consoleMessageSender';
import { MessageDeliveryService } from 'cognito-local/lib/services/messageDelivery/messageDelivery';
import { otp } from 'cognito-local/lib/services/otp';
import { JwtTokenGenerator } from 'cognito-local/lib/services/tokenGenerator';
import { UserPoolServiceFactoryImpl, UserPoolServiceImpl } from 'cognito-local/lib/services/userPoolService';
import { loadConfig } from 'cognito-local/lib/server/config';
import { Router } from 'cognito-local/lib/server/Router';
import { createServer } from 'cognito-local/lib/server/server';

const portOf = (server: Server) => (server.address() as AddressInfo).port;

/** A pino-shaped logger that drops everything: cognito-local logs each call otherwise. */
const silentLogger: Record<string, unknown> = { level: 'silent', child: () => silentLogger };
for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) silentLogger[level] = () => undefined;

/**
 * cognito-local looks a missing username up again by scanning the pool (for a `sub` or alias), so each
 * AdminCreateUser costs the pool's size; our pools have no aliases, so a miss is answered without it.
 */
function withoutAliasScans(): void {
  const prototype = UserPoolServiceImpl.prototype as unknown as {
    getUserByUsername: (this: { options: { UsernameAttributes?: string[] }; dataStore: { get: (ctx: unknown, key: string[]) => Promise<unknown> } }, ctx: unknown, username: string) => Promise<unknown>;
    __noAliasScan?: boolean;
  };
  if (prototype.__noAliasScan) return;
  const original = prototype.getUserByUsername;
  prototype.getUserByUsername = async function (ctx, username) {
    if (this.options.UsernameAttributes?.length) return original.call(this, ctx, username);
    return (await this.dataStore.get(ctx, ['Users', username])) ?? null;
  };
  prototype.__noAliasScan = true;
}

/** Cognito's NEW_PASSWORD_REQUIRED challenge for a sign-in with a temporary password, where cognito-local returns tokens. */
function withTemporaryPasswords(router: Router, cognito: CognitoService): Router {
  return (target) => {
    const handle = router(target);
    if (target !== 'AdminInitiateAuth') return handle;
    return async (ctx, req: { ClientId?: string; AuthParameters?: Record<string, string> }) => {
      const { USERNAME, PASSWORD } = req.AuthParameters ?? {};
      if (req.ClientId && USERNAME && PASSWORD) {
        const user = await (await cognito.getUserPoolForClientId(ctx, req.ClientId)).getUserByUsername(ctx, USERNAME);
        if (user?.UserStatus === 'FORCE_CHANGE_PASSWORD' && user.Enabled !== false && user.Password === PASSWORD) {
          const ChallengeParameters = { USER_ID_FOR_SRP: user.Username, requiredAttributes: '[]', userAttributes: '{}' };
          return { ChallengeName: 'NEW_PASSWORD_REQUIRED', ChallengeParameters, Session: randomUUID() };
        }
      }
      return handle(ctx, req);
    };
  };
}

/** cognito-local's own `createDefaultServer` (which keeps its data under `./.cognito`), on our data directory. */
async function startCognito(directory: string, port: number): Promise<Server> {
  mkdirSync(join(directory, 'db'), { recursive: true });
  const ctx = { logger: silentLogger } as never;
  const config = await loadConfig(ctx, new JournaledDataStoreFactory(directory) as never);
  // cognito-local's pools default to e-mail usernames; ours are user uuids, as in the CDK user pool.
  delete config.UserPoolDefaults.UsernameAttributes;
  withoutAliasScans();
  const clock = new DateClock();
  const stores = new JournaledDataStoreFactory(join(directory, 'db')) as never;
  const cognito = await new CognitoServiceFactoryImpl(join(directory, 'db'), stores, new UserPoolServiceFactoryImpl(clock, stores)).create(ctx, config.UserPoolDefaults);
  // No Lambda triggers are configured; the CryptoService costs 0.8 s of CPU to load: loaded on first use.
  let crypto: Promise<CryptoService> | undefined;
  const lazyCrypto = {
    encrypt: async (context: unknown, plaintext: string) => {
      crypto ??= import('cognito-local/lib/services/crypto').then(({ CryptoService }) => new CryptoService(config.KMSConfig));
      return (await crypto).encrypt(context as never, plaintext);
    },
  };
  const triggers = new TriggersService(clock, cognito, new LambdaService(config.TriggerFunctions, {} as never), lazyCrypto as unknown as CryptoService);
  const messages = new MessagesService(triggers, new MessageDeliveryService(new ConsoleMessageSender()));
  const services = { clock, cognito, config, messages, otp, tokenGenerator: new JwtTokenGenerator(clock, triggers, config.TokenConfig), triggers } as never;
  const router = withCognitoQuotas(withTemporaryPasswords(Router(services), cognito));
  const server = createServer(router, silentLogger as never, { port, hostname: HOST }, services);
  return (await server.start()) as Server;
}

/** The little of fauxqs's S3 the stack drives: its object store (kept in files) and its Fastify app. */
interface FauxS3Store {
  persistence?: unknown;
  spy?: { addMessage(message: { service: string; bucket?: string; key?: string; status?: string }): void };
  hasBucket(name: string): boolean;
  createBucket(name: string): void;
  putObject(bucket: string, key: string, ...rest: unknown[]): { contentLength: number; etag: string };
}
interface FauxApp {
  server: Server;
  removeContentTypeParser(type: string): void;
  addContentTypeParser(type: string, options: { parseAs: 'buffer'; bodyLimit: number }, parser: (request: unknown, body: Buffer, done: (error: null, body: Buffer) => void) => void): void;
  listen(options: { port: number; host: string }): Promise<string>;
  close(): Promise<void>;
}

/** fauxqs's modules by file (its store and persistence are not exported): hence its exact version in package.json. */
const fauxqsModule = (file: string) => import(pathToFileURL(join(projectRoot, 'node_modules', 'fauxqs', 'dist', file)).href);

type How = 'Put' | 'Post' | 'Copy';

/** What S3 sends a notification target for a created object: one record. */
function createdEvent(bucket: string, key: string, object: { contentLength: number; etag: string }, how: How): S3Event {
  const requestId = randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase();
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: LOCAL_REGION,
        eventTime: new Date().toISOString(),
        eventName: `ObjectCreated:${how}`,
        userIdentity: { principalId: `AWS:${LOCAL_ACCOUNT_ID}` },
        requestParameters: { sourceIPAddress: HOST },
        responseElements: { 'x-amz-request-id': requestId, 'x-amz-id-2': requestId },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'local',
          bucket: { name: bucket, ownerIdentity: { principalId: LOCAL_ACCOUNT_ID }, arn: `arn:aws:s3:::${bucket}` },
          // S3 writes the key form-encoded: spaces as `+`, the rest percent-encoded, slashes kept.
          object: { key: encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+'), size: object.contentLength, eTag: object.etag.replace(/"/g, ''), sequencer: Date.now().toString(16).toUpperCase() },
        },
      },
    ],
  };
}

/**
 * fauxqs's S3, its objects kept under `directory`, behind a front server (`s3Front`) that checks POST
 * uploads' policies as S3 does (docs/local-stack.md#the-local-s3). Each object created is announced to
 * `onCreated` as S3's event.
 */
export async function startS3(directory: string, bucketName: string, onCreated: (event: S3Event) => void): Promise<Server> {
  const [{ buildApp }, { S3Store }, { FileS3Persistence }] = (await Promise.all([fauxqsModule('app.js'), fauxqsModule('s3/s3Store.js'), fauxqsModule('s3/fileS3Persistence.js')])) as [
    { buildApp(options: { logger: boolean; stores: { s3Store: FauxS3Store } }): FauxApp },
    { S3Store: new () => FauxS3Store },
    { FileS3Persistence: new (directory: string) => { loadS3(store: FauxS3Store): void } },
  ];
  const store = new S3Store();
  const persistence = new FileS3Persistence(directory);
  persistence.loadS3(store);
  store.persistence = persistence;
  if (!store.hasBucket(bucketName)) store.createBucket(bucketName);
  // Every write goes through `putObject`; the action that called it then tells the spy what it was (a POST, a copy).
  let created: { bucket: string; key: string; how: How } | undefined;
  let writing = false;
  const putObject = store.putObject.bind(store);
  store.putObject = (bucket, key, ...rest) => {
    writing = true;
    try {
      const object = putObject(bucket, key, ...rest);
      const write = (created = { bucket, key, how: 'Put' });
      queueMicrotask(() => onCreated(createdEvent(bucket, key, object, write.how)));
      return object;
    } finally {
      writing = false;
    }
  };
  store.spy = {
    addMessage: ({ service, bucket, key, status }) => {
      if (writing || service !== 's3' || !created || created.bucket !== bucket || created.key !== key) return;
      if (status === 'uploaded') created.how = 'Post';
      if (status === 'copied') created.how = 'Copy';
    },
  };
  const app = buildApp({ logger: false, stores: { s3Store: store } });
  // fauxqs reads bodies of up to 11 MiB; S3 takes 5 GiB, and a bulk upload may be 50 MiB.
  app.removeContentTypeParser('*');
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: Math.min(5 * 1024 ** 3, bufferConstants.MAX_LENGTH) }, (_request, body, done) => done(null, body));
  await app.listen({ port: 0, host: HOST });
  const front = s3Front((request, response) => app.server.emit('request', request, response), portOf(app.server), [LOCAL_CREDENTIALS]);
  front.once('close', () => void app.close());
  return front;
}

/** aws-ses-v2-local with its mailbox kept in `directory` and the local outage seam, on a port nobody is told of. */
async function startSes(directory: string): Promise<Server> {
  // Required as ses-mailbox.ts requires its store: the one instance of the package, bundled or not.
  const { default: sesServer } = createRequire(join(projectRoot, 'package.json'))('aws-ses-v2-local') as typeof SesV2Local;
  mkdirSync(directory, { recursive: true });
  keepMailboxIn(join(directory, 'mailbox.jsonl'));
  const ses = await sesServer({ host: HOST, port: 0 });
  routeSesOutages(ses);
  return ses;
}

/** Starts cognito-local and holds the ports of the S3 and SES emulators, each on its port of last time when free. */
export async function startEmulators(dataDir: string, bucketName: string, dynamoStarting: Promise<DynamoDBLocal>) {
  const previous = previousPorts(dataDir);
  const teardown = new Teardown();
  try {
    const [s3Port, sesPort] = await Promise.all([holdPort(previous.s3), holdPort(previous.ses)]);
    teardown.add('S3 port', () => s3Port.close());
    teardown.add('SES port', () => sesPort.close());
    const cognito = await startCognito(join(dataDir, 'cognito'), await portIfFree(previous.cognito));
    teardown.add('cognito-local', () => closeServer(cognito));
    // aws-ses-v2-local answers GetAccount from this variable only: a production account's default quota.
    process.env.AWS_SES_ACCOUNT ??= JSON.stringify(localSesAccount);
    const dynamo = await dynamoStarting;
    const ports: Record<EmulatorName, number> = { dynamodb: dynamo.port, s3: s3Port.port, cognito: portOf(cognito), ses: sesPort.port };
    writeFileSync(portsFile(dataDir), JSON.stringify(ports, null, 2));
    const url = (name: EmulatorName) => `http://${HOST}:${ports[name]}`;
    const s3Listeners: ((event: S3Event) => void)[] = [];
    // A server that starts after a stop is closed at once (the teardown's rule), its held port closed already.
    const startOnHeldPort = async (name: string, held: HeldPort, start: () => Promise<Server>) => {
      try {
        const server = await start();
        teardown.add(name, () => closeServer(server));
        held.handTo(server);
      } catch (error) {
        held.fail();
        throw error;
      }
    };
    let deferred: Promise<void> | undefined;
    return {
      endpoints: { dynamodb: url('dynamodb'), s3: url('s3'), cognito: url('cognito'), ses: url('ses') },
      /** The e-mails the SES emulator received: a JSON list, and a web page. */
      mailboxUrl: `${url('ses')}/store`,
      mailboxViewerUrl: `${url('ses')}/`,
      onS3Event: (listener: (event: S3Event) => void) => void s3Listeners.push(listener),
      /** Starts the S3 and SES emulators on the ports already announced, off the start-up path (docs/local-stack.md). */
      startDeferred: (): Promise<void> =>
        (deferred ??= Promise.allSettled([
          startOnHeldPort('S3 emulator', s3Port, () => startS3(join(dataDir, 's3'), bucketName, (event) => s3Listeners.forEach((listener) => listener(event)))),
          startOnHeldPort('SES emulator', sesPort, () => startSes(join(dataDir, 'ses'))),
        ]).then((outcomes) => {
          // Both settled (neither left starting behind a stop): the first failure, if any, is the answer.
          for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
        })),
      stop: async () => {
        await deferred?.catch(() => undefined);
        await teardown.run();
      },
    };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
