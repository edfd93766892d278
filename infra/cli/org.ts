import { parseArgs } from 'node:util';
import { toolEnvironmentOf } from '../local/env/function-env-file';
import { deployedStack, runningLocalStack, useStackEnvironment } from '../stack-target';
import { runCommand, UsageError } from './command';

/**
 * Operator CLI: creates organizations (with their first ADMIN) and adds environments, bots, supervisors,
 * personas, functions and knowledge collections, through the same domain services the local seed uses.
 *
 *   npm run org -- create --name acme2 --admin-email ops@acme.example --admin-name "Ops" --admin-password 'S3cret!'
 *   npm run org -- add-bot --org <uuid> --env <uuid> --name "Sales bot"
 *
 * Target: the running local stack (default, found in .local, or --data-dir; infra/stack-target.ts), or a
 * deployed stack with --outputs <file> (written by `cdk deploy --outputs-file <file>`) and the usual AWS
 * credentials in the environment. Prints the result as JSON (exit code 0). A bad argument is one line and
 * exit code 2 (no command at all: the usage, exit code 2; `--help`: the usage, exit code 0); a refused
 * operation or an unreachable stack is one line and exit code 1.
 */


const commands: Record<string, { required: string[]; optional: string[]; help: string }> = {
  create: {
    required: ['name', 'admin-email', 'admin-password'],
    optional: ['admin-name'],
    help: '--name <realm> --admin-email <e-mail> --admin-password <password> [--admin-name <name>]',
  },
  'add-environment': { required: ['org', 'name'], optional: [], help: '--org <org uuid> --name <name>' },
  'resend-welcomes': {
    required: ['org', 'job'],
    optional: [],
    help: '--org <org uuid> --job <job id>   (a bulk job\'s welcome e-mails SES did not accept, sent again by the worker)',
  },
  'index-users': {
    required: ['org'],
    optional: [],
    help: '--org <org uuid>   (builds the users index and the ADMIN set from the user items; safe on a live organization)',
  },
  'reseal-provider-secrets': {
    required: ['org'],
    optional: [],
    help: "--org <org uuid>   (seals again under the KMS key every identity provider's secret sealed under the table's key before it; safe to repeat)",
  },
  'add-bot': { required: ['org', 'env', 'name'], optional: [], help: '--org <org uuid> --env <env uuid> --name <name>' },
  'add-persona': {
    required: ['bot', 'name'],
    optional: ['backstory', 'personality', 'communication-style', 'image'],
    help: '--bot <bot uuid> --name <name> [--backstory ..] [--personality ..] [--communication-style ..] [--image <url>]',
  },
  'add-function': { required: ['bot', 'name'], optional: [], help: '--bot <bot uuid> --name <name>' },
  'add-collection': {
    required: ['bot', 'name'],
    optional: ['description', 'document-count'],
    help: '--bot <bot uuid> --name <name> [--description ..] [--document-count <n>]',
  },
  'add-supervisor': {
    required: ['bot', 'role', 'goal', 'persona'],
    optional: ['instructions', 'guardrails', 'not-default'],
    help: '--bot <bot uuid> --role <role> --goal <goal> --persona <persona uuid> [--instructions ..] [--guardrails ..] [--not-default]',
  },
};

const optionNames = [...new Set(Object.values(commands).flatMap((c) => [...c.required, ...c.optional]))];

function usage(): string {
  return ['Usage: npm run org -- <command> [options] [--outputs <cdk outputs file> | --data-dir <dir>]', ...Object.entries(commands).map(([name, c]) => `  ${name} ${c.help}`)].join('\n');
}

/**
 * Points the process's configuration at the target stack before any domain module reads it: a local
 * stack's tools' environment (what its functions share, from `function-env.json`), a deployed stack's outputs.
 */
function configureTarget(outputsFile: string | undefined, dataDir: string): void {
  if (outputsFile) return useStackEnvironment(deployedStack(outputsFile));
  runningLocalStack(dataDir, { orElse: 'pass --outputs <file>' });
  Object.assign(process.env, toolEnvironmentOf(dataDir));
}

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...Object.fromEntries(optionNames.map((name) => [name, { type: name === 'not-default' ? 'boolean' : 'string' } as const])),
      outputs: { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean' },
    },
  }) as { values: Record<string, string | boolean | undefined>; positionals: string[] };
  const [command, ...extra] = positionals;
  if (values.help) {
    console.log(usage());
    return undefined;
  }
  if (!command) throw new UsageError(`No command given\n${usage()}`);
  const spec = commands[command];
  if (!spec) throw new UsageError(`Unknown command "${command}"; commands: ${Object.keys(commands).join(', ')}`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}"`);
  const allowed = new Set([...spec.required, ...spec.optional, 'outputs', 'data-dir']);
  const stray = Object.keys(values).find((name) => !allowed.has(name));
  if (stray) throw new UsageError(`Option --${stray} does not apply to ${command}`);
  const missing = spec.required.find((name) => !values[name]);
  if (missing) throw new UsageError(`${command} needs --${missing} (${spec.help})`);
  const text = (name: string) => values[name] as string;
  const optionalText = (name: string) => (values[name] as string | undefined) ?? undefined;

  configureTarget(optionalText('outputs'), optionalText('data-dir') ?? '.local');
  const admin = await import('../../shared/app/operator/operator.service');
  switch (command) {
    case 'create': {
      const { organization, admin: user } = await admin.createOrganization({
        name: text('name'),
        adminEmail: text('admin-email'),
        adminPassword: text('admin-password'),
        adminName: optionalText('admin-name') ?? text('admin-email').split('@')[0]!,
      });
      return { organization, admin: { uuid: user.uuid, email: user.email, role: user.role } };
    }
    case 'add-environment':
      return admin.addEnvironment(text('org'), text('name'));
    case 'index-users':
      return admin.indexUsers(text('org'));
    case 'resend-welcomes': {
      const { requeueWelcomesOf, jobView } = await import('../../shared/app/bulk/bulk.service');
      return jobView(await requeueWelcomesOf(text('org'), text('job')));
    }
    case 'reseal-provider-secrets': {
      const { resealProviderSecrets } = await import('../../shared/app/identity-providers/identity-provider.service');
      return resealProviderSecrets(text('org'));
    }
    case 'add-bot':
      return admin.addBot(text('org'), text('env'), text('name'));
    case 'add-persona': {
      const style = optionalText('communication-style');
      const { communicationStyles } = await import('../../shared/domain/org/org.entities');
      if (style && !(communicationStyles as readonly string[]).includes(style)) {
        throw new UsageError(`--communication-style must be one of ${communicationStyles.join(', ')}`);
      }
      return admin.addPersona(text('bot'), {
        name: text('name'),
        backstory: optionalText('backstory'),
        personality: optionalText('personality'),
        image: optionalText('image'),
        ...(style ? { communicationStyle: style as (typeof communicationStyles)[number] } : {}),
      });
    }
    case 'add-function':
      return admin.addFunction(text('bot'), text('name'));
    case 'add-collection': {
      const count = optionalText('document-count');
      if (count !== undefined && !/^\d+$/.test(count)) throw new UsageError('--document-count must be a whole number');
      return admin.addCollection(text('bot'), {
        name: text('name'),
        description: optionalText('description') ?? '',
        ...(count !== undefined ? { documentCount: Number(count) } : {}),
      });
    }
    case 'add-supervisor':
      return admin.addSupervisor(text('bot'), {
        role: text('role'),
        goal: text('goal'),
        personaUuid: text('persona'),
        instructions: optionalText('instructions'),
        guardrails: optionalText('guardrails'),
        isDefault: !values['not-default'],
      });
  }
  return undefined;
}

/** One line for any failure: usage, domain rule, or an unreachable target. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const details = (error as { details?: { fieldName: string; message: string }[] }).details;
  if (details?.length) return details.map((d) => `${d.fieldName}: ${d.message}`).join('; ');
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(String((error as { cause?: unknown }).cause ?? error.message))) {
    return 'The target stack does not answer: is npm start running?';
  }
  return error.message;
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
runCommand(() => run(process.argv.slice(2)), { prefix: 'org: ', describe });
