import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JAVA_MISSING } from '../../infra/local/dynamodb-local';
import { toolEnvironmentOf } from '../../infra/local/env/function-env-file';
import { awaitLocalStack } from '../../infra/stack-target';

// Generous: a loaded shared machine can take a minute to start the JVM and seed; a healthy start takes seconds.
const READY_TIMEOUT_MS = 150_000;

/**
 * Starts the real local stack the way `npm start` does (DynamoDB Local, fauxqs's S3,
 * cognito-local, aws-ses-v2-local and the gateway, each on a free loopback port) with fresh data in a temporary
 * directory, and waits for its `stack.json`. Jest's workers inherit the environment set here: the
 * stack's description, the run's shared directory (`TEST_RUN_DIR`), and the tools' environment (what the functions share, `function-env.json`) for
 * tests that call the product's modules directly.
 */
export default async function globalSetup(): Promise<void> {
  // What test files of this run share besides the stack (the bundled cloud assembly: test/support/bundled-assembly.ts).
  process.env.TEST_RUN_DIR = mkdtempSync(join(tmpdir(), 'management-api-run-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'management-api-test-'));
  const child = spawn(process.execPath, ['infra/local/start.mjs', '--fresh', '--data-dir', dataDir], {
    cwd: join(__dirname, '..', '..'),
    // Cognito's quotas raised for the shared stack: many files create and sign in users at once, and
    // the product's back-off would slow them; cognito-throttling.test.ts runs a stack at low quotas.
    // An e-mail the mail function answers "retry" comes back from the mail queue after 3 s (AWS: 6 min).
    env: { ...process.env, PORT: '0', POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT', LOCAL_COGNITO_QUOTAS: '{"*":10000}', LOCAL_MAIL_VISIBILITY_SECONDS: '3' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // The stack's own lines (local Lambda timeouts, retries, sweeps) are kept for a failed run to explain
  // itself: beside the data directory, which `--fresh` empties.
  const log = createWriteStream(`${dataDir}.log`);
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    log.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  (globalThis as { __localStack?: ChildProcess }).__localStack = child;

  const started = await awaitLocalStack(dataDir, { alive: () => child.exitCode === null, timeoutMs: READY_TIMEOUT_MS });
  if ('failed' in started) {
    // The one thing a newcomer's machine may lack: say what to install, without a stack trace.
    if (started.failed === 'exited' && output.includes(JAVA_MISSING)) {
      console.error(`\n${JAVA_MISSING}`);
      process.exit(1);
    }
    throw new Error(started.failed === 'exited' ? `The local stack exited early:\n${output}` : `The local stack was not ready within ${READY_TIMEOUT_MS} ms:\n${output}`);
  }
  Object.assign(process.env, toolEnvironmentOf(dataDir));
  process.env.TEST_STACK_JSON = join(dataDir, 'stack.json');
  process.env.TEST_STACK_DIR = dataDir;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
}
