import { performance } from 'node:perf_hooks';
import type { StackInfo } from './stack';

/** `npm start`: the local stack in one process, until Ctrl-C. */

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function banner(info: StackInfo, dataDir: string, ms: number): string {
  const org = info.orgs[0]!;
  const lines = [
    '',
    `Management API (local) ready in ${(ms / 1000).toFixed(1)} s`,
    `  API        ${info.apiUrl}/${info.userSubpath}/...   ${info.apiUrl}/${info.generativeSubpath}/...`,
    `  Tokens     ${info.authUrl}/auth/realms/{org_name}/protocol/openid-connect/token   client_id ${info.clientId}`,
    `  Mailbox    ${info.mailboxUrl}`,
    `  DynamoDB   ${info.endpoints.dynamodb}   S3 ${info.endpoints.s3}   Cognito ${info.endpoints.cognito}   SES ${info.endpoints.ses}`,
    `  Described  ${dataDir}/stack.json`,
    '  Demo logins:',
    ...info.orgs.map((o) => `    realm ${o.name.padEnd(8)} ${o.admin.email.padEnd(24)} ${o.admin.password}   org ${o.uuid}`),
    '  Get a token:',
    `    curl -s ${info.authUrl}/auth/realms/${org.name}/protocol/openid-connect/token -d grant_type=password -d client_id=${info.clientId} --data-urlencode username=${org.admin.email} --data-urlencode password=${org.admin.password}`,
    'Ctrl-C stops everything.',
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = performance.now();
  const args = process.argv.slice(2);
  let fresh = false;
  let dataDir = '.local';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--fresh') fresh = true;
    else if (args[i] === '--data-dir' && args[i + 1]) dataDir = args[++i]!;
    else fail(`Unknown option ${args[i]}; options are --fresh and --data-dir <dir>`);
  }
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number (got "${process.env.PORT}")`);

  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  // The emulators pull in AWS SDK v2 (cognito-local) and SDK v3 warns on Node 20: notices, not problems.
  process.env.AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE = '1';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { PortInUseError, startLocalStack } = await import('./stack');
  const { JavaMissingError } = await import('./dynamodb-local');
  let stack;
  try {
    stack = await startLocalStack({ dataDir, port, fresh });
  } catch (error) {
    if (error instanceof JavaMissingError) fail(error.message);
    if (error instanceof PortInUseError) fail(`${error.message}: stop what uses it or start with PORT=<another port> npm start`);
    fail(`The local stack did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(banner(stack.info, dataDir, performance.now() - started));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack…`);
    stack
      .stop()
      .then(() => process.exit(0))
      .catch(() => process.exit(1));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
