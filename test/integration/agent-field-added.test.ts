import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type * as Fields from '../../shared/domain/agents/agent.fields';
import type * as Schemas from '../../shared/domain/agents/agent.schemas';
import type * as Responses from '../../shared/domain/agents/agent.responses';
import type * as Mapper from '../../shared/domain/agents/agent.mapper';
import type * as Read from '../../shared/app/agents/agent-read.service';
import type * as Write from '../../shared/app/agents/agent-write.service';
import type * as Revisions from '../../shared/app/agents/agent-revision.service';
import type * as BotScopes from '../../shared/domain/agents/bot-scope';
import type * as OrgRepository from '../../shared/domain/org/org.repository';
import type * as BundleSchemas from '../../shared/app/bundles/bundle.schemas';
import type * as BundleResponses from '../../shared/app/bundles/bundle.responses';
import type * as BundleExport from '../../shared/app/bundles/bundle-export';
import type * as BundlePlan from '../../shared/app/bundles/bundle-plan';
import type * as BundleApply from '../../shared/app/bundles/bundle-apply';
import type * as OpenApiFile from '../../scripts/openapi-file';
import type * as BotHelpers from '../support/bot-helpers';
import { unique } from '../support/stack';

/**
 * A field declared once reaches every place: a copy of the agents' field declaration
 * (`shared/domain/agents/agent.fields.ts`) with one more optional text field, `notes`, stands in for
 * the real one, and nothing else is edited. The use cases then run against the local stack's table:
 * create, read, update, revisions, their diff, restore, bundle export, plan and apply all carry the
 * field, and the OpenAPI document `npm run openapi` writes lists it in the request and response
 * schemas, and differs from the committed one by that field only.
 */

const FIELDS = resolve(__dirname, '../../shared/domain/agents/agent.fields.ts');
/** The one line a new optional text field takes, after `guardrails`. */
const NEW_FIELD = "  notes: optionalField({ body: () => text(500), response: () => z.string() }),\n";

/**
 * The declaration with `NEW_FIELD`, in a temporary directory of the repository's `.local/` (so that
 * its packages resolve as the original's do), its relative imports pointing back at the repository.
 */
function declarationWithNotes(dir: string): string {
  const source = readFileSync(FIELDS, 'utf8');
  const anchor = source.match(/\n {2}guardrails: optionalField\([^\n]*\n/);
  if (!anchor) throw new Error('agent.fields.ts no longer declares guardrails as an optional field: update this test');
  const edited = source
    .replace(anchor[0], `${anchor[0]}${NEW_FIELD}`)
    .replace(/from '(\.{1,2}\/[^']+)'/g, (_, path: string) => `from '${join(dirname(FIELDS), path)}'`);
  const copy = join(dir, 'agent.fields.ts');
  writeFileSync(copy, edited);
  return copy;
}

const LOCAL = resolve(__dirname, '../../.local');
let dir: string;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let m: {
  fields: typeof Fields;
  schemas: typeof Schemas;
  responses: typeof Responses;
  mapper: typeof Mapper;
  read: typeof Read;
  write: typeof Write;
  revisions: typeof Revisions;
  scopes: typeof BotScopes;
  org: typeof OrgRepository;
  bundleSchemas: typeof BundleSchemas;
  bundleResponses: typeof BundleResponses;
  bundleExport: typeof BundleExport;
  bundlePlan: typeof BundlePlan;
  bundleApply: typeof BundleApply;
  openApi: typeof OpenApiFile;
  bots: typeof BotHelpers;
};

beforeAll(() => {
  mkdirSync(LOCAL, { recursive: true });
  dir = mkdtempSync(join(LOCAL, 'agent-fields-'));
  const copy = declarationWithNotes(dir);
  // Every module of this file that imports the declaration gets the copy.
  jest.doMock('../../shared/domain/agents/agent.fields', () => jest.requireActual(copy));
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded after the mock, on purpose */
  m = {
    fields: require('../../shared/domain/agents/agent.fields'),
    schemas: require('../../shared/domain/agents/agent.schemas'),
    responses: require('../../shared/domain/agents/agent.responses'),
    mapper: require('../../shared/domain/agents/agent.mapper'),
    read: require('../../shared/app/agents/agent-read.service'),
    write: require('../../shared/app/agents/agent-write.service'),
    revisions: require('../../shared/app/agents/agent-revision.service'),
    scopes: require('../../shared/domain/agents/bot-scope'),
    org: require('../../shared/domain/org/org.repository'),
    bundleSchemas: require('../../shared/app/bundles/bundle.schemas'),
    bundleResponses: require('../../shared/app/bundles/bundle.responses'),
    bundleExport: require('../../shared/app/bundles/bundle-export'),
    bundlePlan: require('../../shared/app/bundles/bundle-plan'),
    bundleApply: require('../../shared/app/bundles/bundle-apply'),
    openApi: require('../../scripts/openapi-file'),
    bots: require('../support/bot-helpers'),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
});

type Agent = Record<string, unknown> & { uuid: string; role: string };

/** A fresh bot and the operator's scope on it. */
async function setUp() {
  const bot = await m.bots.freshBot();
  const scope = m.scopes.operatorScope((await m.org.findBot(bot.botUuid))!);
  return { bot, scope };
}

const shown = (view: Mapper.AgentView) => m.mapper.toAgentResponse(view) as unknown as Agent;

describe('an optional text field added to the declaration alone', () => {
  it('is declared by the copy, not by the repository’s file', () => {
    expect(Object.keys(m.fields.agentFields)).toContain('notes');
    expect(m.fields.replacedOnUpdate).toContain('notes');
    expect(readFileSync(FIELDS, 'utf8')).not.toContain('notes:');
  });

  it('is taken by create, shown by reads and replaced by updates (cleared when left out), with its limit', async () => {
    const { bot, scope } = await setUp();
    const { agentCreateSchema, agentUpdateSchema, supervisorUpdateSchema } = m.schemas.agentSchemas();
    const role = `Notes ${unique()}`;

    const created = await m.write.createAgent(
      scope,
      agentCreateSchema.parse({ role, goal: 'Keep notes', persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false, notes: '  First note ' }),
    );
    expect(shown(created).notes).toBe('First note');
    const read = shown(await m.read.readAgent(scope, 'AGENT', created.record.uuid));
    expect(read.notes).toBe('First note');
    expect(m.responses.agentResponses().agentSchema.safeParse(read).success).toBe(true);

    const updated = await m.write.updateAgent(scope, read.uuid, agentUpdateSchema.parse({ ...read, notes: 'Second note' }));
    expect(shown(updated).notes).toBe('Second note');
    const cleared = await m.write.updateAgent(scope, read.uuid, agentUpdateSchema.parse({ ...read, notes: undefined }));
    expect(shown(cleared).notes).toBeNull();
    expect(cleared.record).not.toHaveProperty('notes');

    const tooLong = agentCreateSchema.safeParse({ role, goal: 'g', persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false, notes: 'x'.repeat(501) });
    expect(tooLong.error?.issues).toEqual([expect.objectContaining({ path: ['notes'], message: 'Must be at most 500 characters' })]);

    // A supervisor's update replaces it too.
    const supervisor = shown(await m.read.readDefaultSupervisor(scope));
    const supervisorUpdated = await m.write.updateSupervisor(scope, supervisor.uuid, supervisorUpdateSchema.parse({ ...supervisor, notes: 'Routing note' }));
    expect(shown(supervisorUpdated).notes).toBe('Routing note');
  });

  it('is kept by revisions, shown by their diff and brought back by a restore', async () => {
    const { bot, scope } = await setUp();
    const { agentCreateSchema, agentUpdateSchema } = m.schemas.agentSchemas();
    const created = await m.write.createAgent(
      scope,
      agentCreateSchema.parse({ role: `Revised ${unique()}`, goal: 'Keep notes', persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false, notes: 'Original' }),
    );
    const uuid = created.record.uuid;
    await m.write.updateAgent(scope, uuid, agentUpdateSchema.parse({ ...shown(created), notes: 'Changed' }));

    const record = await m.read.requireLatestRecord(scope, 'AGENT', uuid);
    expect((await m.revisions.readRevision(record, 1, 'AGENT')).agent).toMatchObject({ notes: 'Original' });
    expect((await m.revisions.readRevision(record, 2, 'AGENT')).agent).toMatchObject({ notes: 'Changed' });
    expect((await m.revisions.diffRevisions(record, 'AGENT', 2)).patch).toEqual([{ op: 'replace', path: '/notes', value: 'Changed' }]);
    // The first revision's diff adds the whole Agent.
    expect((await m.revisions.diffRevisions(record, 'AGENT', 1)).patch).toEqual([{ op: 'add', path: '', value: expect.objectContaining({ notes: 'Original' }) }]);

    const restored = await m.write.restoreRevision(scope, 'AGENT', uuid, 1);
    expect(shown(restored).notes).toBe('Original');
    expect(restored.record).toHaveProperty('notes', 'Original');
    const again = await m.read.requireLatestRecord(scope, 'AGENT', uuid);
    expect((await m.revisions.diffRevisions(again, 'AGENT', 3)).patch).toEqual([{ op: 'replace', path: '/notes', value: 'Original' }]);
  });

  it('is carried by bundle exports, and a plan and an apply see its change', async () => {
    const { bot, scope } = await setUp();
    const { agentCreateSchema } = m.schemas.agentSchemas();
    const role = `Bundled ${unique()}`;
    await m.write.createAgent(
      scope,
      agentCreateSchema.parse({ role, goal: 'Keep notes', persona: { uuid: bot.personas[0]!.uuid }, inheritFromSupervisor: false, notes: 'Exported' }),
    );

    const { bundle } = await m.bundleExport.exportBundle(scope);
    expect(m.bundleResponses.bundleResponses().bundleResponseSchema.safeParse(bundle).success).toBe(true);
    const entry = bundle.agents.find((agent) => agent.role === role) as Record<string, unknown>;
    expect(entry.notes).toBe('Exported');
    expect(bundle.supervisors[0]).toHaveProperty('notes', null);

    const { bundleSchema } = m.bundleSchemas.bundleSchemas();
    const unchanged = await m.bundlePlan.planBundle(scope, bundleSchema.parse(bundle));
    expect(unchanged.changes.map((change) => change.action)).toEqual(['unchanged', 'unchanged']);

    const edited = bundleSchema.parse({ ...bundle, agents: bundle.agents.map((agent) => (agent.role === role ? { ...agent, notes: 'Applied' } : agent)) });
    const plan = await m.bundlePlan.planBundle(scope, edited);
    expect(plan.changes.find((change) => change.role === role)).toMatchObject({ action: 'update', patch: [{ op: 'replace', path: '/notes', value: 'Applied' }] });

    const applied = await m.bundleApply.applyBundle(scope, edited);
    const written = applied.plan.changes.find((change) => change.role === role)!.next!;
    expect(written).toHaveProperty('notes', 'Applied');
    expect(shown(await m.read.readAgent(scope, 'AGENT', written.uuid)).notes).toBe('Applied');
    const record = await m.read.requireLatestRecord(scope, 'AGENT', written.uuid);
    expect((await m.revisions.readRevision(record, record.version, 'AGENT')).agent).toMatchObject({ notes: 'Applied' });
  });

  it('is listed by the OpenAPI document in the request and response schemas, which differs from the committed one by that field alone', () => {
    type Schema = { properties?: Record<string, Schema>; required?: string[]; items?: Schema };
    /** What bodies take: a text of 1 to 500 characters, or null (absent). */
    const optionalText = { anyOf: [{ type: 'string', minLength: 1, maxLength: 500 }, { type: 'null' }] };
    type Document = { paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, { schema: Schema }> } }>>; components: { schemas: Record<string, Schema> } };
    const text = m.openApi.openApiFileText();
    const document = JSON.parse(text) as Document;
    const body = (operationId: string) =>
      Object.values(document.paths).flatMap((item) => Object.values(item)).find((operation) => operation.operationId === operationId)!.requestBody!.content['application/json']!.schema;

    for (const id of ['agents.create', 'agents.update', 'supervisors.update']) {
      expect(body(id).properties?.notes).toEqual(optionalText);
      expect(body(id).required ?? []).not.toContain('notes');
    }
    const bundleEntry = body('bundles.apply').properties!.agents!.items!;
    expect(bundleEntry.properties?.notes).toEqual(optionalText);
    const { Agent, BotBundle } = document.components.schemas;
    expect(Agent!.properties?.notes).toEqual({ type: ['string', 'null'] });
    expect(Agent!.required).toContain('notes');
    expect(BotBundle!.properties!.agents!.items!.properties?.notes).toEqual({ type: ['string', 'null'] });

    // Take the field out again: what remains is the committed document.
    const withoutNotes = JSON.parse(text, function (key, value: unknown) {
      if (key === 'notes' && this && typeof this === 'object' && !Array.isArray(this)) return undefined;
      if (key === 'required' && Array.isArray(value)) return value.filter((name) => name !== 'notes');
      return value;
    }) as Document;
    const committed = JSON.parse(readFileSync(resolve(__dirname, '../../docs/openapi.json'), 'utf8')) as Document;
    expect(withoutNotes).toEqual(committed);
    expect(text).not.toEqual(readFileSync(resolve(__dirname, '../../docs/openapi.json'), 'utf8'));
  });
});
