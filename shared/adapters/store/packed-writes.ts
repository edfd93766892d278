import type { TableWrite } from './table';

/** TransactWriteItems' limit on the items of one transaction. */
export const TRANSACTION_ITEMS = 100;

const keyOf = (write: TableWrite): string => {
  const key = write.Put?.Item ?? write.Update?.Key ?? write.Delete?.Key ?? write.ConditionCheck?.Key ?? {};
  return `${String(key.PK)}\u0000${String(key.SK)}`;
};

const ADDS = /^ADD (#\w+ :\w+(?:, #\w+ :\w+)*)$/;

/** The counters an unconditional `ADD #n :v, …` update adds to, by attribute name; undefined for any other write. */
function counters(write: TableWrite): Map<string, number> | undefined {
  const update = write.Update;
  if (!update || update.ConditionExpression) return undefined;
  const adds = ADDS.exec(update.UpdateExpression ?? '');
  if (!adds) return undefined;
  const sums = new Map<string, number>();
  for (const pair of adds[1]!.split(', ')) {
    const [name, value] = pair.split(' ') as [string, string];
    const attribute = update.ExpressionAttributeNames?.[name];
    const amount = update.ExpressionAttributeValues?.[value] as unknown;
    if (attribute === undefined || typeof amount !== 'number') return undefined;
    sums.set(attribute, (sums.get(attribute) ?? 0) + amount);
  }
  return sums;
}

/** Two unconditional counter updates of one item as one (their amounts added), or undefined when they cannot be. */
function mergedCounters(a: TableWrite, b: TableWrite): TableWrite | undefined {
  const [first, second] = [counters(a), counters(b)];
  if (!first || !second) return undefined;
  for (const [attribute, amount] of second) first.set(attribute, (first.get(attribute) ?? 0) + amount);
  const names = [...first.keys()];
  return {
    Update: {
      Key: a.Update!.Key,
      UpdateExpression: `ADD ${names.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#c${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:c${i}`, first.get(name)])),
    },
  };
}

/** One transaction being packed: its writes by item key, in order. */
class Packing<T> {
  readonly writes = new Map<string, TableWrite>();
  readonly members: T[] = [];

  /** Adds a member's writes if they fit (at most `TRANSACTION_ITEMS` items, every shared item a counter both add to); false, changing nothing, if not. */
  tryAdd(member: T, writes: readonly TableWrite[]): boolean {
    const merged = new Map<string, TableWrite>();
    let added = 0;
    for (const write of writes) {
      const key = keyOf(write);
      const before = merged.get(key) ?? this.writes.get(key);
      if (!before) {
        merged.set(key, write);
        added += 1;
        continue;
      }
      const combined = mergedCounters(before, write);
      if (!combined) return false;
      merged.set(key, combined);
    }
    if (this.writes.size + added > TRANSACTION_ITEMS) return false;
    for (const [key, write] of merged) this.writes.set(key, write);
    this.members.push(member);
    return true;
  }
}

/**
 * Packs the writes of several members (users, each with the writes of its own transaction) into as few
 * transactions as they fit: at most 100 items each, a member never split, and an item two members
 * write (an organization's counter) written once, with what both add. Members whose writes cannot
 * share a transaction (both write one item otherwise than by adding to counters) go to different
 * ones. Each transaction keeps its members in order.
 */
export function packTransactions<T>(members: readonly { member: T; writes: readonly TableWrite[] }[]): { members: T[]; writes: TableWrite[] }[] {
  const packed: Packing<T>[] = [];
  for (const { member, writes } of members) {
    const open = packed.find((packing) => packing.tryAdd(member, writes));
    if (open) continue;
    const fresh = new Packing<T>();
    if (!fresh.tryAdd(member, writes)) throw new RangeError(`A member's writes (${writes.length}) do not fit one transaction`);
    packed.push(fresh);
  }
  return packed.map((packing) => ({ members: packing.members, writes: [...packing.writes.values()] }));
}
