import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../infra/cloud/project-root';
import { TASK_DIR, type Assembly } from '../../scripts/sam-env';

export type EnvVarsFile = Record<string, Record<string, string>>;

/**
 * The environment `sam local invoke` gives a function (samcli/local/lambdafn/env_vars.py): its AWS_*
 * variables, then each variable the template declares, with the `--env-vars` file's value for the
 * function (over its `Parameters`) if any; an expression left unresolved becomes "". Nothing else.
 */
export function samEnvironment(template: Assembly['template'], logicalId: string, envVars: EnvVarsFile): Record<string, string> {
  const { Properties } = template.Resources[logicalId] as unknown as {
    Properties: { Handler: string; MemorySize?: number; Timeout?: number; Environment?: { Variables?: Record<string, unknown> } };
  };
  const overrides = { ...envVars.Parameters, ...envVars[logicalId] };
  const env: Record<string, string> = {
    AWS_SAM_LOCAL: 'true',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(Properties.MemorySize ?? 128),
    AWS_LAMBDA_FUNCTION_TIMEOUT: String(Properties.Timeout ?? 3),
    AWS_LAMBDA_FUNCTION_HANDLER: Properties.Handler,
    AWS_LAMBDA_FUNCTION_NAME: logicalId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'defaultkey',
    AWS_SECRET_ACCESS_KEY: 'defaultsecret',
    AWS_ACCOUNT_ID: '123456789012',
  };
  for (const [name, value] of Object.entries(Properties.Environment?.Variables ?? {})) {
    env[name] = overrides[name] ?? (typeof value === 'string' ? value : '');
  }
  return env;
}

export type Outcome = { ok: true; result: unknown } | { ok: false; error: { name: string; message: string } };

// What the Node.js runtime does with the handler setting `<module>.<export>`, run from the code directory.
const runtime = `
const { readFileSync, writeFileSync } = require('node:fs');
const [eventsFile, outFile] = process.argv.slice(1);
const [moduleName, exportName] = process.env.AWS_LAMBDA_FUNCTION_HANDLER.split('.');
(async () => {
  const handler = require(process.cwd() + '/' + moduleName)[exportName];
  const outcomes = [];
  for (const [index, event] of JSON.parse(readFileSync(eventsFile, 'utf8')).entries()) {
    const context = {
      functionName: process.env.AWS_LAMBDA_FUNCTION_NAME, functionVersion: '$LATEST', memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:' + process.env.AWS_LAMBDA_FUNCTION_NAME,
      awsRequestId: 'sam-local-' + index, getRemainingTimeInMillis: () => Number(process.env.AWS_LAMBDA_FUNCTION_TIMEOUT) * 1000,
    };
    try { outcomes.push({ ok: true, result: await handler(event, context) }); }
    catch (error) { outcomes.push({ ok: false, error: { name: error.name, message: error.message } }); }
  }
  writeFileSync(outFile, JSON.stringify(outcomes));
})();
`;

/**
 * Runs a bundle's handler on each event in turn, in a Node.js process of its own whose working
 * directory is the code directory and whose environment is `env` (SAM mounts the code at /var/task:
 * paths there are mapped to `codeDir`) and Lambda's NODE_PATH. Answers each outcome and what the process printed.
 */
export async function invokeBundle(codeDir: string, env: Record<string, string>, events: unknown[]): Promise<{ outcomes: Outcome[]; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'sam-invoke-'));
  try {
    const eventsFile = join(dir, 'events.json');
    const outFile = join(dir, 'outcomes.json');
    writeFileSync(eventsFile, JSON.stringify(events));
    const mounted = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replaceAll(TASK_DIR, codeDir)]));
    const child = spawn(process.execPath, ['-e', runtime, eventsFile, outFile], {
      cwd: codeDir,
      // The runtime's own copy of the AWS SDK, which the bundles leave out, is on Lambda's NODE_PATH.
      env: { PATH: process.env.PATH, NODE_PATH: join(projectRoot, 'node_modules'), ...mounted },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    if (code !== 0) throw new Error(`The function's process exited with ${code}:\n${output}`);
    return { outcomes: JSON.parse(readFileSync(outFile, 'utf8')) as Outcome[], output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
