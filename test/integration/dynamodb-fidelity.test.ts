import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/adapters/clients/dynamodb';
import { config } from '../../shared/kernel/config';
import { unique } from '../support/stack';

// The embedded database must keep what DynamoDB keeps and refuse what DynamoDB refuses. dynalite lost
// map entries of hot items under concurrent updates with queries in between (stale LevelDB snapshots
// written back), had no transactions and measured item size in UTF-16 units.

const client = () => documentClient();
const table = () => config().tableName;

async function mapOf(pk: string, sk: string): Promise<Record<string, number>> {
  const { Item } = await client().send(new GetCommand({ TableName: table(), Key: { PK: pk, SK: sk }, ConsistentRead: true }));
  return (Item?.entries ?? {}) as Record<string, number>;
}

/** Runs `tasks` with at most `width` of them at once. */
async function pool(width: number, tasks: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) await tasks[next++]!();
    }),
  );
}

test('thousands of concurrent map updates to a few hot items, queried meanwhile and read for a while after, lose nothing', async () => {
  const pk = `TEST#hot#${unique()}`;
  const hotItems = ['A', 'B', 'C'];
  for (const sk of hotItems) await client().send(new PutCommand({ TableName: table(), Item: { PK: pk, SK: sk, entries: {} } }));
  const updates = 2000;
  const tasks: (() => Promise<unknown>)[] = [];
  for (let i = 0; i < updates; i++) {
    tasks.push(() =>
      client().send(
        new UpdateCommand({
          TableName: table(),
          Key: { PK: pk, SK: hotItems[i % hotItems.length] },
          UpdateExpression: 'SET entries.#k = :v',
          ExpressionAttributeNames: { '#k': `k${i}` },
          ExpressionAttributeValues: { ':v': i },
        }),
      ),
    );
    if (i % 10 === 0) tasks.push(() => client().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } })));
  }
  await pool(48, tasks);

  // Reads for a while after the writes: dynalite lost entries here too, in a read-only phase.
  const until = Date.now() + 3000;
  let reads = 0;
  while (Date.now() < until) {
    const { Items } = await client().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }));
    const total = (Items ?? []).reduce((sum, item) => sum + Object.keys(item.entries as object).length, 0);
    expect(total).toBe(updates);
    reads += 1;
  }
  expect(reads).toBeGreaterThan(5);
  for (const [index, sk] of hotItems.entries()) {
    const entries = await mapOf(pk, sk);
    const expected = Array.from({ length: updates }, (_, i) => i).filter((i) => i % hotItems.length === index);
    expect(Object.keys(entries).length).toBe(expected.length);
    for (const i of expected) expect(entries[`k${i}`]).toBe(i);
  }
});

test('TransactWriteItems is all or nothing: one failed condition cancels every write, with a reason per item', async () => {
  const pk = `TEST#tx#${unique()}`;
  await client().send(new PutCommand({ TableName: table(), Item: { PK: pk, SK: 'taken', value: 1 } }));

  const attempt = client().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table(), Item: { PK: pk, SK: 'new', value: 2 } } },
        { Put: { TableName: table(), Item: { PK: pk, SK: 'taken', value: 3 }, ConditionExpression: 'attribute_not_exists(PK)' } },
      ],
    }),
  );
  const error = await attempt.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(TransactionCanceledException);
  expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual(['None', 'ConditionalCheckFailed']);
  const { Items } = await client().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }));
  expect(Items).toEqual([{ PK: pk, SK: 'taken', value: 1 }]);
});

test('item size is counted in UTF-8 bytes, as DynamoDB does: 210,000 two-byte characters exceed 400 KB', async () => {
  const pk = `TEST#size#${unique()}`;
  // 210,000 UTF-16 units (what dynalite counted, under the limit) but 420,000 UTF-8 bytes.
  const tooLarge = client().send(new PutCommand({ TableName: table(), Item: { PK: pk, SK: 'big', text: 'é'.repeat(210_000) } }));
  await expect(tooLarge).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/Item size/i) });
  await client().send(new PutCommand({ TableName: table(), Item: { PK: pk, SK: 'fits', text: 'é'.repeat(190_000) } }));
  const { Items } = await client().send(new QueryCommand({ TableName: table(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }));
  expect(Items?.map((item) => item.SK)).toEqual(['fits']);
});
