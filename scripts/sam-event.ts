/**
 * `npm run sam:event -- <route id> [--outputs cdk-outputs.json | --data-dir .local] [--set __NAME__=value ...]`:
 * prints `events/<route id>.json` with its placeholders (events/README.md) filled from a stack.
 *
 * The running local stack gives every value (`.local/stack.json`: its first organization). A deployed
 * stack gives the API, the client id and the bucket; the organization's values come with `--set`
 * (what `npm run org -- create` printed). What the event needs beyond that is made through the stack's
 * API as its ADMIN: an access token, the default supervisor or the first agent, a user of its own, a
 * bulk job; and the state a route expects (`users.activate` gets its user deleted first).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { catalogue } from '../shared/edge/api/catalogue';
import { defaultSubpaths, type Subpaths } from '../shared/edge/api/routes';
import { projectRoot } from '../infra/cloud/project-root';
import { runCommand, UsageError } from '../infra/cli/command';
import { deployedStack, runningLocalStack, type StackTarget } from '../infra/stack-target';
import { bundledFunctions, readAssembly } from './sam-env';
import { makeValues, type EventStack } from './event-values';

export const eventsDir = join(projectRoot, 'events');


export interface FilledEvent {
  event: Record<string, unknown>;
  values: Record<string, string>;
}

/** Where a stack's events come from: its addresses, and for the local stack its first organization. */
export function eventStack(target: StackTarget): EventStack {
  const values: Record<string, string> = { __CLIENT_ID__: target.clientId, __BUCKET__: target.bulkBucket };
  if (target.kind === 'local') {
    const org = target.info.orgs[0]!;
    const environment = org.environments[0]!;
    const [bot, otherBot] = environment.bots;
    Object.assign(values, {
      __REALM__: org.name,
      __ORG_UUID__: org.uuid,
      __ADMIN_EMAIL__: org.admin.email,
      __ADMIN_PASSWORD__: org.admin.password,
      __ENV_UUID__: environment.uuid,
      __ENV_NAME__: environment.name,
      __BOT_UUID__: bot!.uuid,
      __OTHER_BOT_UUID__: otherBot!.uuid,
      __PERSONA_UUID__: bot!.personas[0]!.uuid,
      __FUNCTION_UUID__: bot!.functions[0]!.uuid,
      __COLLECTION_UUID__: bot!.collections[0]!.uuid,
      // The stack's demo OpenID provider, whose discovery document the API reads (infra/local/demo-sso.ts).
      ...(target.info.demoSso ? { __IDP_ISSUER__: target.info.demoSso.issuer } : {}),
    });
  }
  return { apiUrl: target.apiUrl, authUrl: target.authUrl, subpaths: target.subpaths, values };
}

/** The local stack running on `dataDir`, as its first organization. */
export const localStack = (dataDir: string): EventStack => eventStack(runningLocalStack(dataDir, { orElse: 'pass --outputs <file>' }));

/** The event files' ids: route ids, and `<function>.<source>-<what>` for trigger events (S3, the table stream). */
export function eventIds(): string[] {
  return readdirSync(eventsDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.replace(/\.json$/, ''));
}

/** A trigger event's id names its function: `bulk-worker.s3-put`, `publisher.dynamodb-insert`, `mail.sqs-reactivation`. */
export const isTriggerEvent = (id: string): boolean => /\.(s3|dynamodb|sqs)-/.test(id);

/** The placeholders a template names (`__ORG_UUID__`, …). */
export const placeholders = (text: string): Set<string> => new Set(text.match(/__[A-Z_]+__/g) ?? []);

/**
 * The template's placeholders still present in a filled text. Only the template's own names count: a
 * filled value (a token's base64url signature, say) can hold `__ABC__` by chance.
 */
export const unfilledPlaceholders = (template: string, filled: string): string[] => [...placeholders(template)].filter((name) => filled.includes(name));
/**
 * Fills `events/<id>.json` from the stack, as `npm run sam:event` prints it. Values go into every string
 * of the event; URL-encoded where the text is (a form body, the raw query string); into the decoded text
 * of a base64 body (multipart), which is encoded again.
 */
export async function fillEvent(id: string, stack: EventStack, given: Record<string, string> = {}): Promise<FilledEvent> {
  if (!eventIds().includes(id)) throw new UsageError(`No event ${id}; events: ${eventIds().join(', ')}`);
  const raw = JSON.parse(readFileSync(join(eventsDir, `${id}.json`), 'utf8')) as Record<string, unknown>;
  const base64 = raw.isBase64Encoded === true && typeof raw.body === 'string';
  const decoded = base64 ? Buffer.from(raw.body as string, 'base64').toString('utf8') : '';
  const needed = placeholders(`${JSON.stringify(raw)}\n${decoded}`);
  const values = { ...stack.values, ...given };
  await makeValues(id, needed, stack, values);
  const missing = [...needed].filter((name) => values[name] === undefined || values[name] === '');
  if (missing.length > 0) throw new UsageError(`Give ${missing.join(', ')} with --set <name>=<value> (events/README.md)`);

  const substitute = (text: string, encode = (value: string) => value) => text.replace(/__[A-Z_]+__/g, (name) => encode(values[name]!));
  const fill = (value: unknown): unknown =>
    typeof value === 'string' ? substitute(value) : Array.isArray(value) ? value.map(fill) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)])) : value;
  const event = fill(raw) as Record<string, unknown>;
  const headers = (raw.headers ?? {}) as Record<string, string>;
  if (typeof raw.rawQueryString === 'string') event.rawQueryString = substitute(raw.rawQueryString, encodeURIComponent);
  if (base64) event.body = Buffer.from(substitute(decoded), 'utf8').toString('base64');
  else if (typeof raw.body === 'string' && headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
    event.body = substitute(raw.body, encodeURIComponent);
  }
  return { event: withSubpaths(event, stack.subpaths), values };
}

/** The files are written for the default subpaths; a stack with others gets its own in the paths. */
function withSubpaths(event: Record<string, unknown>, subpaths: Subpaths): Record<string, unknown> {
  let text = JSON.stringify(event);
  for (const area of ['generative', 'user'] as const) {
    if (subpaths[area] !== defaultSubpaths[area]) text = text.replaceAll(` /${defaultSubpaths[area]}/`, ` /${subpaths[area]}/`).replaceAll(`"/${defaultSubpaths[area]}/`, `"/${subpaths[area]}/`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      outputs: { type: 'string' },
      'data-dir': { type: 'string', default: '.local' },
      set: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      'cdk-out': { type: 'string', default: 'cdk.out' },
    },
  });
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0) throw new UsageError('Usage: npm run sam:event -- <route id> [--outputs <cdk outputs file> | --data-dir .local] [--set __NAME__=value ...] [--out <file>]');
  const given = Object.fromEntries(
    values.set.map((pair) => {
      const match = /^(__[A-Z_]+__)=(.*)$/s.exec(pair);
      if (!match) throw new UsageError(`--set takes __NAME__=value (got "${pair}")`);
      return [match[1]!, match[2]!];
    }),
  );
  const stack = values.outputs ? eventStack(deployedStack(values.outputs)) : localStack(values['data-dir']);
  const { event } = await fillEvent(id, stack, given);
  const text = `${JSON.stringify(event, null, 2)}\n`;
  if (values.out) writeFileSync(values.out, text);
  else process.stdout.write(text);
  // The function SAM invokes: the group the route (or the S3 event's name) belongs to.
  try {
    const group = isTriggerEvent(id) ? id.split('.')[0] : catalogue.find((route) => route.id === id)?.group;
    const fn = bundledFunctions(readAssembly(values['cdk-out'])).find((candidate) => candidate.group === group);
    if (fn) console.error(`Function: ${fn.logicalId}`);
  } catch {
    // No synthesized assembly yet: the event is still printed.
  }
}

if (process.argv[1]?.endsWith('sam-event.ts')) runCommand(() => main(process.argv.slice(2)));
