import { createHash } from 'node:crypto';
import type { BotScope } from '../../domain/agents/bot-scope';
import { agentFields, type AgentFields } from '../../domain/agents/agent.fields';
import { toAgentResponse, type AgentResponse } from '../../domain/agents/agent.mapper';
import { namesWhere, type NamesWith } from '../../kernel/schemas/declared-fields';
import { readBotPartition, type AgentRecord, type BotPartition } from '../../domain/agents/agent.repository';
import { listRevisionTimes } from '../../domain/agents/agent-revision.repository';
import { ValidationError } from '../../kernel/errors';
import { compareText, fold } from '../../kernel/text/matching';
import type { BundleEntryResponse, BundleResponse } from './bundle.responses';
import { BUNDLE_FORMAT_VERSION } from './bundle.schemas';
import { readRevision } from '../agents/agent-revision.service';

/**
 * The bot's configuration version: a digest of the sorted (uuid, version) pairs of its supervisors and
 * agents, so any write of any of them changes it.
 */
export function configurationVersion(agents: Pick<AgentRecord, 'uuid' | 'version'>[]): string {
  const pairs = agents.map(({ uuid, version }) => `${uuid}:${version}`).sort();
  return createHash('sha256').update(pairs.join('\n')).digest('base64url').slice(0, 22);
}

/** An Agent as a bundle entry: each field a bundle carries as its `toEntry` says (references by name, constraints by value, no uuid). */
export function entryOf(agent: AgentResponse): BundleEntryResponse {
  const shown = agent as Record<string, unknown>;
  return Object.fromEntries(bundleFields.map((name) => [name, agentFields[name].toEntry(shown[name] as never)])) as BundleEntryResponse;
}

/** The fields a bundle entry carries, in the declaration's order. */
const bundleFields = namesWhere(agentFields, (field) => 'toEntry' in field) as (keyof AgentFields & NamesWith<AgentFields, 'bundle'>)[];

/** Role order (without case or accents, then as written), then the whole entry: one order for one configuration. */
export const byRole = <T extends { role: string }>(a: T, b: T): number =>
  compareText(fold(a.role), fold(b.role)) || compareText(a.role, b.role) || JSON.stringify(a).localeCompare(JSON.stringify(b));

interface Shown {
  record: AgentRecord;
  agent: AgentResponse;
}

function bundleOf(shown: Shown[], defaultUuid: string | undefined): BundleResponse {
  const supervisors = shown
    .filter(({ record }) => record.kind === 'SUPERVISOR')
    .map(({ record, agent }) => ({ default: record.uuid === defaultUuid, ...entryOf(agent) }))
    .sort((a, b) => Number(b.default) - Number(a.default) || byRole(a, b));
  const agents = shown
    .filter(({ record }) => record.kind === 'AGENT')
    .map(({ agent }) => entryOf(agent))
    .sort(byRole);
  return { formatVersion: BUNDLE_FORMAT_VERSION, supervisors, agents };
}

export interface ExportedBundle {
  bundle: BundleResponse;
  /** The configuration version exported: absent for a past configuration (`at`). */
  version?: string;
}

/** The bot's configuration as a bundle: as it is now, or as it stood at `at` (from the revisions). */
export async function exportBundle({ bot }: BotScope, at?: string): Promise<ExportedBundle> {
  const partition = await readBotPartition(bot.uuid);
  if (at === undefined) {
    const shown = partition.agents.map((record) => ({ record, agent: toAgentResponse({ record, resources: partition.resources, heirs: [] }) }));
    return { bundle: bundleOf(shown, partition.defaultSupervisorUuid), version: configurationVersion(partition.agents) };
  }
  return { bundle: bundleOf(await shownAt(partition, at), partition.defaultSupervisorUuid) };
}

/**
 * Each supervisor and agent as its newest revision at `at` reads (with the names its references had
 * then); those created later are left out. One whose revisions begin after `at` cannot be shown as it was.
 */
async function shownAt(partition: BotPartition, at: string): Promise<Shown[]> {
  const time = Date.parse(at);
  const existing = partition.agents.filter((record) => Date.parse(record.createdAt) <= time);
  const shown = await Promise.all(
    existing.map(async (record) => {
      const revisions = await listRevisionTimes(record);
      const kept = revisions.find((revision) => Date.parse(revision.createdAt) <= time);
      if (!kept) return { record, agent: undefined };
      return { record, agent: (await readRevision(record, kept.revision, record.kind)).agent };
    }),
  );
  const lost = shown.filter((item) => item.agent === undefined);
  if (lost.length > 0) {
    throw new ValidationError({ details: [
      {
        fieldName: 'at',
        message: `No revision of ${lost.map(({ record }) => `"${record.role}"`).join(', ')} goes back to this time; choose a later time`,
        errorCode: 'FIELD_INVALID',
      },
    ] });
  }
  return shown as Shown[];
}
