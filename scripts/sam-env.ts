/**
 * `npm run sam:env`: what `sam local invoke` needs to run the synthesized functions against a stack.
 *
 *   npm run sam:env -- --outputs cdk-outputs.json   deployed stack: writes cdk.out/sam-env.json
 *   npm run sam:env -- --local [--host <name>]      the running local stack: writes .local/sam/
 *
 * SAM gives a function only the variables its template declares, and turns every `Ref` or `GetAtt`
 * among them into an empty string or a logical id. For a deployed stack each such value is read from
 * the stack's outputs (an output whose template value is the same expression). For the local stack each
 * function gets its own environment there (`function-env.json`), which holds more than the deployed
 * template declares (the emulators' endpoints, their credentials) and a signing key file the container
 * must see. So `--local` writes a copy of the template declaring them, a copy of each function's bundle
 * with the key beside it (mounted at /var/task), and the `--env-vars` file, with the emulators'
 * addresses rewritten to a host the container reaches.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ResourceGroup } from '../shared/edge/api/routes';
import { envNames } from '../shared/kernel/config';
import { runCommand, UsageError } from '../infra/cli/command';
import { readFunctionEnvironments } from '../infra/local/env/function-env-file';
import { deployedStack, runningLocalStack } from '../infra/stack-target';


type Json = Record<string, unknown>;

export interface LambdaResource {
  Type: string;
  Metadata?: Json;
  Properties: { Runtime?: string; Environment?: { Variables?: Record<string, unknown> } };
}

export interface Assembly {
  stackName: string;
  /** Absolute path of the stack's template in the cloud assembly. */
  templateFile: string;
  template: { Resources: Record<string, LambdaResource>; Outputs?: Record<string, { Value: unknown }> };
}

export interface BundledFunction {
  logicalId: string;
  /** Absolute path of the bundled asset (`index.js`), read from the template's `aws:asset:path`. */
  assetDir: string;
  /** The resource group, which ServiceFunction also gives Powertools as the service name. */
  group: string;
  variables: Record<string, unknown>;
}

/** The container's mount of the function's code, where `--local` puts the signing key. */
export const TASK_DIR = '/var/task';
const KEY_FILE = 'signing-key.json';
const endpointNames = [
  envNames.dynamodbEndpoint,
  envNames.cognitoEndpoint,
  envNames.kmsEndpoint,
  envNames.s3Endpoint,
  envNames.sesEndpoint,
  envNames.eventbridgeEndpoint,
  envNames.sqsEndpoint,
];


/** The one stack of a cloud assembly (`cdk.out`), found through its manifest. */
export function readAssembly(dir: string): Assembly {
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new UsageError(`No cloud assembly in ${dir}: run npm run synth first`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile: string; stackName?: string } }>;
  };
  const stacks = Object.entries(manifest.artifacts).filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack');
  if (stacks.length !== 1) throw new UsageError(`Expected one stack in ${dir}, found ${stacks.length}`);
  const [artifactId, artifact] = stacks[0]!;
  const templateFile = resolve(dir, artifact.properties!.templateFile);
  return {
    stackName: artifact.properties!.stackName ?? artifactId,
    templateFile,
    template: JSON.parse(readFileSync(templateFile, 'utf8')) as Assembly['template'],
  };
}

/** Every Node.js function whose code is a bundled asset of the assembly, keyed as SAM keys them: by logical id. */
export function bundledFunctions(assembly: Assembly): BundledFunction[] {
  const dir = resolve(assembly.templateFile, '..');
  return Object.entries(assembly.template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime?.startsWith('nodejs') && typeof r.Metadata?.['aws:asset:path'] === 'string')
    .map(([logicalId, r]) => {
      const variables = r.Properties.Environment?.Variables ?? {};
      return { logicalId, assetDir: resolve(dir, r.Metadata!['aws:asset:path'] as string), group: String(variables.POWERTOOLS_SERVICE_NAME), variables };
    });
}

/**
 * Each function's variables with deployed values: an expression is what the output of the same
 * expression says; a join joins resolved parts. What no output gives is left out (SAM then passes
 * an empty string) and listed.
 */
export function deployedEnvVars(assembly: Assembly, outputs: Record<string, string>): { envVars: Record<string, Record<string, string>>; unresolved: string[] } {
  const byExpression = new Map<string, string>();
  for (const [key, output] of Object.entries(assembly.template.Outputs ?? {})) {
    if (outputs[key] !== undefined) byExpression.set(JSON.stringify(output.Value), outputs[key]);
  }
  const valueOf = (value: unknown): string | undefined => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    const known = byExpression.get(JSON.stringify(value));
    if (known !== undefined) return known;
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) {
      const parts = join[1].map(valueOf);
      return parts.every((part) => part !== undefined) ? parts.join(join[0]) : undefined;
    }
    return (value as { Ref?: string }).Ref === 'AWS::StackName' ? assembly.stackName : undefined;
  };
  const envVars: Record<string, Record<string, string>> = {};
  const unresolved: string[] = [];
  for (const fn of bundledFunctions(assembly)) {
    envVars[fn.logicalId] = {};
    for (const [name, value] of Object.entries(fn.variables)) {
      const resolved = valueOf(value);
      if (resolved === undefined) unresolved.push(`${fn.logicalId}.${name}`);
      else envVars[fn.logicalId]![name] = resolved;
    }
  }
  return { envVars, unresolved };
}

/** The local stack's function environment, as a container sees it: emulators at `host`, the key under /var/task. */
export function containerEnv(localEnv: Record<string, string>, host: string): Record<string, string> {
  const env = { ...localEnv };
  for (const name of endpointNames) {
    if (!env[name]) continue;
    const url = new URL(env[name]);
    url.hostname = host;
    env[name] = url.origin;
  }
  if (env[envNames.signingKey]?.startsWith('file:')) env[envNames.signingKey] = `file:${TASK_DIR}/${KEY_FILE}`;
  return env;
}

export interface LocalSam {
  templateFile: string;
  envFile: string;
  /** Each function's copy of its bundle (with the signing key), which the local template points SAM at. */
  codeDirs: Record<string, string>;
}

/** Writes `template.json`, `env.json` and `code/<logical id>/` for `sam local invoke` against the local stack in `dataDir`. */
export function writeLocalSam(assembly: Assembly, options: { dataDir: string; outDir: string; host: string }): LocalSam {
  runningLocalStack(options.dataDir);
  const environments = readFunctionEnvironments(options.dataDir);
  const outDir = resolve(options.outDir);
  const template = structuredClone(assembly.template);
  const codeDirs: Record<string, string> = {};
  const envVars: Record<string, Record<string, string>> = {};
  for (const fn of bundledFunctions(assembly)) {
    const localEnv = environments.get(fn.group as ResourceGroup);
    if (!localEnv) throw new UsageError(`The local stack in ${options.dataDir} runs no ${fn.group} function: start it again from these sources (npm start)`);
    const env = containerEnv(localEnv, options.host);
    const codeDir = join(outDir, 'code', fn.logicalId);
    rmSync(codeDir, { recursive: true, force: true });
    cpSync(fn.assetDir, codeDir, { recursive: true });
    const keyFile = localEnv[envNames.signingKey]?.replace(/^file:/, '');
    if (keyFile && env[envNames.signingKey] !== localEnv[envNames.signingKey]) cpSync(keyFile, join(codeDir, KEY_FILE));
    const resource = template.Resources[fn.logicalId]!;
    resource.Metadata!['aws:asset:path'] = codeDir;
    // SAM passes only declared variables: declare the function's local ones (endpoints, credentials).
    resource.Properties.Environment = { Variables: { ...Object.fromEntries(Object.keys(env).map((name) => [name, ''])), ...fn.variables } };
    codeDirs[fn.logicalId] = codeDir;
    envVars[fn.logicalId] = env;
  }
  mkdirSync(outDir, { recursive: true });
  const local: LocalSam = { templateFile: join(outDir, 'template.json'), envFile: join(outDir, 'env.json'), codeDirs };
  writeFileSync(local.templateFile, JSON.stringify(template, null, 1));
  writeFileSync(local.envFile, JSON.stringify(envVars, null, 2));
  return local;
}

const shown = (path: string) => relative(process.cwd(), path) || '.';

function main(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      outputs: { type: 'string' },
      local: { type: 'boolean' },
      'data-dir': { type: 'string', default: '.local' },
      host: { type: 'string', default: 'host.docker.internal' },
      'cdk-out': { type: 'string', default: 'cdk.out' },
      out: { type: 'string' },
    },
  });
  if (Boolean(values.outputs) === Boolean(values.local)) {
    throw new UsageError('Usage: npm run sam:env -- --outputs <cdk outputs file> [--out <file>] | --local [--data-dir .local] [--host host.docker.internal] [--out <dir>]');
  }
  const assembly = readAssembly(values['cdk-out']);
  const [example] = bundledFunctions(assembly);
  if (values.outputs) {
    const { stackName, outputs } = deployedStack(values.outputs);
    if (stackName !== assembly.stackName) throw new UsageError(`${values.outputs} describes ${stackName}, ${values['cdk-out']} holds ${assembly.stackName}`);
    const { envVars, unresolved } = deployedEnvVars(assembly, outputs);
    const out = values.out ?? join(values['cdk-out'], 'sam-env.json');
    writeFileSync(out, JSON.stringify(envVars, null, 2));
    if (unresolved.length > 0) console.error(`No output gives ${unresolved.join(', ')}: SAM passes them empty.`);
    console.log(`Wrote ${shown(out)}. The functions run with your AWS credentials, not their roles:`);
    console.log(`  sam local invoke -t ${shown(assembly.templateFile)} --env-vars ${shown(out)} ${example?.logicalId} -e event.json`);
    return;
  }
  const local = writeLocalSam(assembly, { dataDir: values['data-dir'], outDir: values.out ?? join(values['data-dir'], 'sam'), host: values.host });
  console.log(`Wrote ${shown(local.templateFile)}, ${shown(local.envFile)} and a copy of each bundle; emulators at ${values.host}:`);
  console.log(`  sam local invoke -t ${shown(local.templateFile)} --env-vars ${shown(local.envFile)} ${example?.logicalId} -e event.json`);
}

if (process.argv[1]?.endsWith('sam-env.ts')) runCommand(() => main(process.argv.slice(2)));
