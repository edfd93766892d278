import { readFileSync, writeFileSync } from 'node:fs';
import { apiErrorFrom, ok, type components } from '../../typescript/src/index';
import { orgOf, type Connection } from './connection';
import { EXIT, note, print, UsageError } from './output';

type Plan = components['schemas']['BundlePlan'];
type Change = Plan['changes'][number];

const bundlePath = '/generative/org/{orgUUID}/env/{envUUID}/bot/{botUUID}/bundle' as const;

export interface BotFlags {
  env: string;
  bot: string;
}

const pathOf = async (connection: Connection, flags: BotFlags) => ({ orgUUID: await orgOf(connection), envUUID: flags.env, botUUID: flags.bot });

/** `bundle export`: the bot's bundle, YAML by default, to stdout or `-o FILE`. */
export async function exportBundle(connection: Connection, flags: BotFlags & { format: string; output?: string; at?: string }): Promise<number> {
  if (flags.format !== 'yaml' && flags.format !== 'json') throw new UsageError(`--format must be yaml or json, not ${flags.format}`);
  const { data, error, response } = await connection.api.GET(bundlePath, {
    params: { path: await pathOf(connection, flags), query: flags.at ? { at: flags.at } : {} },
    headers: { accept: flags.format === 'yaml' ? 'application/yaml' : 'application/json' },
    parseAs: 'text',
  });
  if (!response.ok || data === undefined) throw apiErrorFrom(response, parseJson(error), 'GET');
  const text = data.endsWith('\n') ? data : `${data}\n`;
  if (flags.output) {
    writeFileSync(flags.output, text);
    note(`Wrote the bundle to ${flags.output} (version ${response.headers.get('etag') ?? 'as of --at'})`);
  } else process.stdout.write(text);
  return EXIT.ok;
}

/** `bundle plan`: what applying the file would change; exit 0 when nothing, 2 when something. */
export async function planBundle(connection: Connection, flags: BotFlags & { file: string; json: boolean }): Promise<number> {
  const planned = await plan(connection, flags);
  print(flags.json, planned, () => describePlan(planned));
  return hasChanges(planned) ? EXIT.changes : EXIT.ok;
}

/** `bundle apply`: the plan, then exactly that plan applied all or nothing, guarded by its version (If-Match). */
export async function applyBundle(connection: Connection, flags: BotFlags & { file: string; json: boolean; baseVersion?: string }): Promise<number> {
  const planned = await plan(connection, flags);
  const baseVersion = flags.baseVersion ?? planned.baseVersion;
  const { body, contentType } = bundleBody(flags.file);
  const applied = await ok(
    connection.api.POST(`${bundlePath}/apply`, {
      params: { path: await pathOf(connection, flags), header: { 'If-Match': `"${baseVersion}"` } },
      body: body as never,
      bodySerializer: () => body,
      headers: { 'content-type': contentType },
    }),
  );
  print(flags.json, applied, () => `${describePlan(applied)}\nApplied: the bot's configuration version is now ${applied.version}.`);
  return EXIT.ok;
}

async function plan(connection: Connection, flags: BotFlags & { file: string }): Promise<Plan> {
  const { body, contentType } = bundleBody(flags.file);
  return ok(
    connection.api.POST(`${bundlePath}/plan`, {
      params: { path: await pathOf(connection, flags) },
      body: body as never,
      bodySerializer: () => body,
      headers: { 'content-type': contentType },
    }),
  );
}

/** The file as it is, sent as YAML unless it is JSON (an export of either format plans as is). */
function bundleBody(file: string): { body: string; contentType: string } {
  let body: string;
  try {
    body = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`Cannot read ${file}: check the path given to -f`);
  }
  const json = file.endsWith('.json') || body.trimStart().startsWith('{');
  return { body, contentType: json ? 'application/json' : 'application/yaml' };
}

const hasChanges = (plan: Plan) => plan.changes.some((change) => change.action === 'create' || change.action === 'update');

const SIGN: Record<Change['action'], string> = { create: '+', update: '~', unchanged: '=', untouched: ' ' };

/** The plan as a reviewer reads it: each create and update with its patch, then the counts. */
export function describePlan(plan: Plan): string {
  const lines: string[] = [];
  for (const change of plan.changes) {
    if (change.action !== 'create' && change.action !== 'update') continue;
    lines.push(`${SIGN[change.action]} ${change.action} ${change.kind} "${change.role}"`);
    if (change.action === 'update') {
      for (const op of change.patch) lines.push(`    ${op.op} ${op.path || '/'}${'value' in op ? `: ${JSON.stringify(op.value)}` : ''}`);
    }
  }
  const count = (action: Change['action']) => plan.changes.filter((change) => change.action === action).length;
  const summary = `Plan: ${count('create')} to create, ${count('update')} to update, ${count('unchanged')} unchanged, ${count('untouched')} untouched (not in the bundle).`;
  return [...(lines.length ? lines : ['No changes: the bot already reads as the bundle.']), summary].join('\n');
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
