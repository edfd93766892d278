import { packTransactions, TRANSACTION_ITEMS } from '../../shared/adapters/store/packed-writes';
import type { TableWrite } from '../../shared/adapters/store/table';

// Several users' writes in as few transactions as fit: at most 100 items, an item two of them write
// (the organization's count) written once with what both add, and a member never split.

const put = (pk: string, sk: string): TableWrite => ({ Put: { Item: { PK: pk, SK: sk } } });
/** The count update each user's write carries (`user-index.repository.ts`'s shape). */
const count = (adds: Record<string, number>): TableWrite => {
  const names = Object.keys(adds);
  return {
    Update: {
      Key: { PK: 'ORG#o', SK: 'USERCOUNT' },
      UpdateExpression: `ADD ${names.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#c${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:c${i}`, adds[name]])),
    },
  };
};
/** A user's writes: its record and `items - 2` index items, then the count. */
const user = (id: string, items = 20) => ({ member: id, writes: [put(`USER#${id}`, 'A'), ...Array.from({ length: items - 2 }, (_, i) => put(`IDX#${i % 4}`, `${id}#${i}`)), count({ version: 1, ACTIVE: 1 })] });

test('users share a transaction up to 100 items, the count written once with what they all add', () => {
  const packed = packTransactions(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => user(id)));

  // 19 items of its own each, and the one count: five users (96 items), then the sixth.
  expect(packed.map((transaction) => transaction.members)).toEqual([['a', 'b', 'c', 'd', 'e'], ['f']]);
  expect(packed[0]!.writes).toHaveLength(5 * 19 + 1);
  const counts = packed[0]!.writes.filter((write) => write.Update);
  expect(counts).toEqual([count({ version: 5, ACTIVE: 5 })]);
  for (const transaction of packed) expect(transaction.writes.length).toBeLessThanOrEqual(TRANSACTION_ITEMS);
});

test('two members that write one item otherwise than by adding to counters go to different transactions', () => {
  const conditioned: TableWrite = { Update: { ...count({ ACTIVE: 1 }).Update!, ConditionExpression: 'attribute_exists(PK)' } };
  const packed = packTransactions([
    { member: 'a', writes: [put('USER#a', 'A'), put('CLAIM#x', 'X')] },
    { member: 'b', writes: [put('USER#b', 'A'), put('CLAIM#x', 'X')] },
    { member: 'c', writes: [put('USER#c', 'A'), conditioned] },
    { member: 'd', writes: [put('USER#d', 'A'), count({ ACTIVE: 1 })] },
  ]);

  expect(packed.map((transaction) => transaction.members)).toEqual([['a', 'c'], ['b', 'd']]);
  expect(packed[0]!.writes).toEqual([put('USER#a', 'A'), put('CLAIM#x', 'X'), put('USER#c', 'A'), conditioned]);
});

test('a member whose own writes pass 100 items is refused, not split', () => {
  expect(() => packTransactions([user('big', TRANSACTION_ITEMS + 1)])).toThrow(RangeError);
});
