import { randomUUID } from 'node:crypto';
import type { BotScope } from '../../domain/agents/bot-scope';
import { toAgentResponse } from '../../domain/agents/agent.mapper';
import {
  agentPut,
  bundleLeaseHeld,
  defaultMarkerPut,
  releaseBundleLease,
  takeBundleLease,
  type AgentRecord,
} from '../../domain/agents/agent.repository';
import { ensureTags } from '../../domain/agents/agent-references';
import { revisionWrite } from '../../domain/agents/agent-revision.repository';
import { agentRemoval, removalOf, writeBundleTransaction, type BundleWrite } from '../../domain/agents/bundle.repository';
import { changesBetween } from '../../domain/audit/audit-event';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import { ConflictError } from '../../kernel/errors';
import { logger } from '../../kernel/logger';
import { configurationVersion } from './bundle-export';
import { planBundle, type Plan } from './bundle-plan';
import type { Bundle } from './bundle.schemas';

/**
 * Applying a bundle, all or nothing (docs/api/bundles.md#all-or-nothing): the bot's bundle lease
 * first, so no other write of its supervisors and agents can interleave; then the plan, read
 * strongly consistent under the lease; then its changes in transactions of at most 100 items, each
 * change with its revision and audit event in the same transaction. When any transaction fails,
 * everything already written is undone (previous records put back, revisions, audit events and
 * created records deleted) before the lease is released.
 */

/** How long a lease holds the bot: longer than the function may run, so it outlives any apply it guards. */
const LEASE_MS = 60_000;
/** TransactWriteItems takes 100 items; one is the lease's check. */
const TRANSACTION_ITEMS = 100;

/** Configuration versions an `If-Match` accepts: `'any'`, or those listed. */
export type ExpectedConfiguration = 'any' | readonly string[];

export interface Applied {
  plan: Plan;
  /** The configuration version after the apply. */
  version: string;
}

/** One change's writes, and how to undo them once committed. */
interface Unit {
  writes: BundleWrite[];
  undo: BundleWrite[];
}

export async function applyBundle(scope: BotScope<'write'>, bundle: Bundle, expected?: ExpectedConfiguration): Promise<Applied> {
  const botUuid = scope.bot.uuid;
  const leaseId = randomUUID();
  if (!(await takeBundleLease(botUuid, leaseId, Date.now() + LEASE_MS))) throw new ConflictError({ code: 'BUNDLE_IN_PROGRESS' });
  try {
    const plan = await planBundle(scope, bundle, { consistent: true });
    if (expected !== undefined && expected !== 'any' && !expected.includes(plan.baseVersion)) throw new ConflictError({ code: 'VERSION_CONFLICT' });
    const units = await unitsOf(scope, plan);
    await writeAll(botUuid, leaseId, units);
    const written = new Map(plan.changes.flatMap((change) => (change.next ? [[change.next.uuid, change.next]] : [])));
    const after = [...plan.partition.agents.filter((record) => !written.has(record.uuid)), ...written.values()];
    return { plan, version: configurationVersion(after) };
  } finally {
    await releaseBundleLease(botUuid, leaseId);
  }
}

/** The writes of every created or updated entry; `next` of each change gets its version and time. */
async function unitsOf({ bot }: BotScope<'write'>, plan: Plan): Promise<Unit[]> {
  const created = plan.newTags.length > 0 ? await ensureTags(bot.orgUuid, plan.newTags.map((tag) => tag.name), new Map()) : [];
  const tagByName = new Map(created.map((tag) => [tag.name.toLowerCase(), tag]));
  const { resources } = plan.partition;
  const agentOf = (record: AgentRecord) => toAgentResponse({ record, resources, heirs: record.kind === 'SUPERVISOR' ? plan.heirs : [] });
  const at = new Date().toISOString();
  return plan.changes.flatMap((change): Unit[] => {
    if (!change.next) return [];
    const current = change.current;
    const next: AgentRecord = {
      ...change.next,
      tags: change.next.tags.map((tag) => (tag.uuid ? tag : tagByName.get(tag.name.toLowerCase())!)),
      updatedAt: current && at <= current.updatedAt ? new Date(Date.parse(current.updatedAt) + 1).toISOString() : at,
      version: current ? current.version + 1 : 1,
      revisionsFrom: current ? (current.revisionsFrom ?? current.version + 1) : 1,
      ...(current ? {} : { createdAt: at }),
    };
    change.next = next;
    const after = agentOf(next);
    const action = current ? 'UPDATED' : 'CREATED';
    const revision = revisionWrite(next, after, action);
    const audit = auditWrites({
      orgUuid: bot.orgUuid,
      action: `${next.kind}_${action}`,
      resource: { type: next.kind, uuid: next.uuid },
      changes: changesBetween(current ? agentOf(current) : undefined, after),
      at: next.updatedAt,
    });
    const marker = change.asDefault ? [defaultMarkerPut(bot.uuid, next.uuid)] : [];
    const writes = [agentPut(next, current ? current.version : 'new'), revision, ...audit, ...marker];
    const undoCreated: BundleWrite[] = current ? [agentPut(current, next.version)] : [agentRemoval(bot.uuid, next.uuid)];
    const undo = [...undoCreated, ...[revision, ...audit, ...marker].map(removalOf)];
    return [{ writes, undo }];
  });
}

/** Units packed into transactions of at most 100 items, each with the lease's check. */
function batches(units: Unit[], pick: (unit: Unit) => BundleWrite[], lease: BundleWrite): { units: Unit[]; writes: BundleWrite[] }[] {
  const result: { units: Unit[]; writes: BundleWrite[] }[] = [];
  for (const unit of units) {
    const last = result.at(-1);
    if (last && last.writes.length + pick(unit).length <= TRANSACTION_ITEMS) {
      last.units.push(unit);
      last.writes.push(...pick(unit));
    } else result.push({ units: [unit], writes: [lease, ...pick(unit)] });
  }
  return result;
}

/** Writes every unit or, when a transaction fails, undoes those written and throws. */
async function writeAll(botUuid: string, leaseId: string, units: Unit[]): Promise<void> {
  const lease = bundleLeaseHeld(botUuid, leaseId);
  const written: Unit[] = [];
  try {
    for (const batch of batches(units, (unit) => unit.writes, lease)) {
      const failed = await writeBundleTransaction(batch.writes);
      if (failed.length > 0) {
        throw new ConflictError('The bot’s configuration changed while the bundle was applied; nothing was changed. Plan again, then apply');
      }
      written.push(...batch.units);
    }
  } catch (error) {
    await undo(written.reverse(), lease);
    throw error;
  }
}

async function undo(units: Unit[], lease: BundleWrite): Promise<void> {
  for (const batch of batches(units, (unit) => unit.undo, lease)) {
    const failed = await writeBundleTransaction(batch.writes).catch((error: unknown) => {
      logger.error('undoing a bundle failed', error as Error);
      return [-1];
    });
    if (failed.length > 0) logger.error('undoing a bundle left writes in place', { failed });
  }
}
