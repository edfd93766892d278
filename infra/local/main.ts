import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { StackInfo } from './stack';
import { applyLogMode, isLogMode, LOG_MODE_VARIABLE, LOG_MODES, type LogMode } from './log-modes';

/** `npm start`: the local stack in one process, until Ctrl-C. */

const DEFAULT_DATA_DIR = '.local';

const USAGE = `Usage: npm start [-- [--fresh] [--data-dir <dir>] [--log requests|json|quiet] [--banner]]

Runs the API on the embedded local stack (DynamoDB Local, fauxqs's S3, cognito-local, the SES emulator and
the local API gateway) in this terminal until Ctrl-C, which stops it and keeps its data.

Options (after \`--\`, so that npm passes them on):
  --data-dir <dir>  where the stack keeps its data (default ${DEFAULT_DATA_DIR}); one running stack per directory
  --fresh           empties the data directory and seeds the demo organizations anew, once this stack
                    holds the directory and its port (a directory another stack runs on is never touched)
  --log <mode>      what the terminal shows while the stack runs: \`requests\` (default) a line per request
                    and warnings and errors in full; \`json\` every log line of the functions and the stack,
                    metrics too; \`quiet\` warnings and errors only
  --banner          prints the banner (URLs and demo logins) of the stack running on the data directory, and exits
  --help            prints this and exits

Environment:
  PORT=<port>       the API's port on 127.0.0.1 (default 3000; 0 takes a free one)
  ${LOG_MODE_VARIABLE}=<mode>  the log mode when --log is not given

Exit codes: 0 after Ctrl-C (or SIGTERM), 1 when the stack cannot start, 2 for a bad option.`;

/** One line, then the exit code: what the user reads instead of a stack trace. */
function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

function usageError(message: string): never {
  return fail(`${message}\n\n${USAGE}`, 2);
}

/** The command that starts this stack again on another port, for the port-in-use line. */
const restartHint = (dataDir: string) => `PORT=<another port> npm start${dataDir === DEFAULT_DATA_DIR ? '' : ` -- --data-dir ${dataDir}`}`;

function banner(info: StackInfo, dataDir: string, ms?: number): string {
  const org = info.orgs[0]!;
  const inside = relative(process.cwd(), dataDir);
  const shown = inside === '' ? '.' : inside.startsWith('..') ? dataDir : inside;
  const lines = [
    '',
    ms === undefined ? `Management API (local) running on ${shown}/` : `Management API (local) ready in ${(ms / 1000).toFixed(1)} s`,
    `  API        ${info.apiUrl}/${info.userSubpath}/...   ${info.apiUrl}/${info.generativeSubpath}/...`,
    `  Reference  ${info.docsUrl}   (OpenAPI document ${info.apiUrl}/openapi.json)`,
    `  Tokens     ${info.authUrl}/auth/realms/{org_name}/protocol/openid-connect/token   client_id ${info.clientId}`,
    `  Account    ${info.accountUrl.replace('{realm}', org.name)}   (any realm: ${info.accountUrl})`,
    `  Mailbox    ${info.mailboxViewerUrl}   (JSON: ${info.mailboxUrl}; kept across restarts)`,
    `  Events     ${info.eventsUrl}   (change events put on the local EventBridge bus; kept across restarts)`,
    `  DynamoDB   ${info.endpoints.dynamodb}   S3 ${info.endpoints.s3}   Cognito ${info.endpoints.cognito}   SES ${info.endpoints.ses}`,
    `  Data       ${shown}/ (this stack's alone while it runs)   described in ${shown}/stack.json`,
    '  Demo logins:',
    ...info.orgs.map((o) => `    realm ${o.name.padEnd(8)} ${o.admin.email.padEnd(24)} ${o.admin.password}   org ${o.uuid}`),
    `  Demo SSO   ${info.demoSso.issuer}   (OpenID provider \`${info.demoSso.alias}\` of realm ${info.demoSso.realm} for @${info.demoSso.domain}; discovery ${info.demoSso.issuer}/.well-known/openid-configuration)`,
    `    user ${info.demoSso.user.email}   password ${info.demoSso.user.password}   client ${info.demoSso.clientId} / ${info.demoSso.clientSecret}`,
    '  Get a token:',
    `    curl -s ${info.authUrl}/auth/realms/${org.name}/protocol/openid-connect/token -d grant_type=password -d client_id=${info.clientId} --data-urlencode username=${org.admin.email} --data-urlencode password=${org.admin.password}`,
    ms === undefined ? '' : 'Ctrl-C stops everything and keeps the data; `npm start -- --banner` prints this again.',
    '',
  ];
  return lines.join('\n');
}

function readOptions(): { fresh: boolean; dataDir: string; port: number; log: LogMode; banner: boolean } {
  // `npm start --fresh` (no `--`) is npm's own setting, not passed on: say so rather than start on old data.
  for (const [option, variable] of [['--fresh', 'npm_config_fresh'], ['--data-dir <dir>', 'npm_config_data_dir'], ['--banner', 'npm_config_banner'], ['--log <mode>', 'npm_config_log']] as const) {
    if (process.env[variable] !== undefined) fail(`npm took ${option.split(' ')[0]} as its own option and would not pass it on: run npm start -- ${option}`, 2);
  }
  let parsed;
  try {
    // Strict, without positionals: parseArgs's defaults, over the script's own arguments.
    const options = { fresh: { type: 'boolean' }, 'data-dir': { type: 'string' }, log: { type: 'string' }, banner: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
    parsed = parseArgs({ options });
  } catch (error) {
    usageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const dataDir = values['data-dir'] ?? DEFAULT_DATA_DIR;
  if (dataDir === '') usageError('--data-dir needs a directory');
  const log = values.log ?? (process.env[LOG_MODE_VARIABLE] || 'requests');
  if (!isLogMode(log)) usageError(`--log (or ${LOG_MODE_VARIABLE}) takes one of ${LOG_MODES.join(', ')} (got "${log}")`);
  const portText = process.env.PORT ?? '3000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) fail(`PORT must be a port number from 0 to 65535 (got "${portText}")`, 2);
  return { fresh: values.fresh ?? false, dataDir, port, log, banner: values.banner ?? false };
}

/** `--banner`: the banner of the stack running on `dataDir`, from its stack.json; none is started. */
async function printRunningBanner(dataDir: string): Promise<never> {
  const [{ liveHolder }, { existsSync, readFileSync }, file] = [await import('./data-dir-lock'), await import('node:fs'), join(resolve(dataDir), 'stack.json')];
  if (!liveHolder(resolve(dataDir))) fail(`No local stack runs on ${dataDir}: start one with npm start${dataDir === DEFAULT_DATA_DIR ? '' : ` -- --data-dir ${dataDir}`}`);
  if (!existsSync(file)) fail(`The local stack on ${dataDir} is still starting: its banner follows in its own terminal, or run this again in a moment`);
  console.log(banner(JSON.parse(readFileSync(file, 'utf8')) as StackInfo, resolve(dataDir)));
  process.exit(0);
}

/** While the stack starts, once 1.5 s have passed: each step as it begins, and the current one again after 1.5 s without a line. */
function startingProgress(started: number) {
  let [step, printed] = ['starting', started];
  const print = () => console.log(`  … ${step} (${(((printed = performance.now()) - started) / 1000).toFixed(0)} s)`);
  const timer = setInterval(() => performance.now() - printed >= 1_500 && print(), 250);
  return { step: (now: string) => void ((step = now), performance.now() - started >= 1_500 && print()), done: () => clearInterval(timer) };
}

async function main(): Promise<void> {
  const started = performance.now();
  const { fresh, dataDir, port, log, banner: bannerOnly } = readOptions();
  if (bannerOnly) await printRunningBanner(dataDir);

  // The request lines are the functions' INFO lines; quiet needs none of them written.
  process.env.POWERTOOLS_LOG_LEVEL ??= log === 'quiet' ? 'WARN' : 'INFO';
  applyLogMode(log);
  // The emulators pull in AWS SDK v2 (cognito-local), whose maintenance notice is known: not a problem.
  process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';
  const { PortInUseError, startLocalStack } = await import('./stack');
  const { JavaMissingError } = await import('./dynamodb-local');
  const { DataDirInUseError } = await import('./data-dir-lock');

  // Ctrl-C while starting: stop once started, with the data consistent; a second Ctrl-C does not wait.
  let stack: Awaited<ReturnType<typeof startLocalStack>> | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      if (!stack) process.exit(130);
      return;
    }
    stopping = true;
    console.log(`\n${signal}: stopping the local stack…`);
    void stack?.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const progress = startingProgress(started);
  try {
    stack = await startLocalStack({ dataDir, port, fresh, progress: progress.step });
  } catch (error) {
    if (error instanceof JavaMissingError) fail(error.message);
    if (error instanceof DataDirInUseError) {
      fail(`${error.message}: stop that stack first (Ctrl-C in its terminal), or run another one with npm start -- --data-dir <another dir>`);
    }
    if (error instanceof PortInUseError) {
      fail(`${error.message} (by another program, or a stack on another data directory): stop it, or start this one with ${restartHint(dataDir)}`);
    }
    fail(`The local stack did not start: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    progress.done();
  }
  if (stopping) {
    await stack.stop().catch(() => process.exit(1));
    process.exit(0);
  }
  console.log(banner(stack.info, stack.dataDir, performance.now() - started));
}

void main();
