/** `npm run bench:dynamodb` (docs/benchmarks.md#dynamodb-operations): the store operations the product uses, on DynamoDB Local. */
import { startDynamoDBLocal } from '../infra/local/dynamodb-local';
import { ensureTable, LOCAL_CREDENTIALS, LOCAL_TABLE } from '../infra/local/provision';
import { envNames } from '../shared/kernel/config';
import * as store from '../shared/adapters/store/table';
import { benchmark, type Context } from './harness/benchmark';
import { percentile, table, timed } from './harness/series';
import { onCleanUp, placeholderConfig, tempDir } from './harness/stack';
import { putAll } from './harness/seed';
import { keys } from '../shared/adapters/store/keys';
import { readPostings } from '../shared/domain/users/user-index.repository';
import { QUERY_PAGE_ITEMS } from '../shared/adapters/store/table';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../shared/adapters/clients/dynamodb';
import { randomUUID } from 'node:crypto';

const [ITEMS, HOT_ITEMS, WARM_UP] = [200, 8, 200];

/** DynamoDB Local as the local stack starts it, the table, and the items the operations read. */
async function data() {
  const { endpoint, stop } = await startDynamoDBLocal(tempDir('bench-dynamodb-'));
  onCleanUp(stop);
  const credentials = { AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey };
  Object.assign(process.env, { ...placeholderConfig, ...credentials, [envNames.tableName]: LOCAL_TABLE, [envNames.dynamodbEndpoint]: endpoint });
  await ensureTable(endpoint);
  const run = Date.now().toString(36);
  for (let i = 0; i < ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#${i}`, SK: 'ITEM', payload: 'x'.repeat(200) });
  for (let i = 0; i < 50; i++) await store.putItem({ PK: `BENCH#${run}#Q`, SK: `ROW#${String(i).padStart(3, '0')}`, payload: 'y'.repeat(200) });
  for (let i = 0; i < HOT_ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#HOT`, SK: `SHARD#${i}`, entries: {} });
  return run;
}

/** Each operation as the product makes it; `n` counts the operations so that each writes or reads its own item. */
function operations(run: string): [string, () => Promise<unknown>][] {
  let n = 0;
  const item = (i: number) => ({ PK: `BENCH#${run}#${i % ITEMS}`, SK: 'ITEM' });
  const [absent, value] = [{ ConditionExpression: 'attribute_not_exists(PK)' }, { ':v': 'v'.repeat(100) }];
  const hot = (i: number) => ({ Key: { PK: `BENCH#${run}#HOT`, SK: `SHARD#${i % HOT_ITEMS}` }, ExpressionAttributeNames: { '#k': `k${i % 400}` } });
  return [
    ['GetItem', () => store.getItem(item(n++))],
    ['PutItem (conditional, new item)', () => store.putItem({ PK: `BENCH#${run}#NEW#${n++}`, SK: 'ITEM', payload: 'z'.repeat(200) }, absent)],
    [`UpdateItem (a map entry on ${HOT_ITEMS} hot items)`, () => store.updateItem({ ...hot(n++), UpdateExpression: 'SET entries.#k = :v', ExpressionAttributeValues: value })],
    ['Query (50 items)', () => store.queryPrefix(`BENCH#${run}#Q`, 'ROW#')],
    ['BatchGetItem (100 keys)', () => store.getItems(Array.from({ length: 100 }, (_, i) => item(i + n++)))],
    ['TransactWriteItems (2 puts)', () => store.transactWrite([{ Put: { Item: { PK: `BENCH#${run}#TX#${n++}`, SK: 'A' }, ...absent } }, { Put: { Item: { PK: `BENCH#${run}#TX#${n}`, SK: 'B' } } }])],
  ];
}

/** `count` operations with `width` in flight, after the unmeasured ones: rate per second and latencies. */
async function throughput(operation: () => Promise<unknown>, width: number, count: number) {
  const drive = async (total: number, samples: number[] = []) => {
    let next = 0;
    await Promise.all(Array.from({ length: width }, async () => {
      while (next++ < total) samples.push((await timed(operation))[0]);
    }));
    return samples;
  };
  await drive(WARM_UP);
  const [elapsed, samples] = await timed(() => drive(count));
  return { rate: count / (elapsed / 1000), p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

/**
 * One long partition read whole: `items` postings of one word prefix (as a search every user matches
 * reads them), in pages as DynamoDB cuts them (1 MB), in pages of at most `QUERY_PAGE_ITEMS` (the store
 * module's Query), and by uuid ranges (the users index's ranged read); `RUNS` of each.
 */
async function longPartition(items: number, progress: Context['progress']) {
  const org = randomUUID();
  const at = new Date().toISOString();
  progress(`putting ${items} postings into one partition`);
  await putAll(Array.from({ length: items }, (_, i) => {
    const uuid = randomUUID();
    return { ...keys.userPosting(org, 'exa', uuid), type: 'USERTERM', uuid, name: `Person ${i} Benchmark`, email: `person.${i}@example.com`, company: 'Benchmark Company', createdAt: at, updatedAt: at, status: 'ACTIVE' };
  }));
  const pk = keys.userPostings(org, 'exa');
  const unbounded = async () => {
    const found: unknown[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documentClient().send(new QueryCommand({ TableName: LOCAL_TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true, ExclusiveStartKey: start }));
      found.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return found;
  };
  const runs = async (read: () => Promise<unknown[]>) => {
    const ms: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const [took, found] = await timed(read);
      if (found.length !== items) throw new Error(`Read ${found.length} postings of ${items}: run the bench alone, on a fresh DynamoDB Local`);
      ms.push(took);
    }
    return ms;
  };
  return {
    items,
    ways: [
      { way: 'pages as DynamoDB cuts them (1 MB)', ms: await runs(unbounded) },
      { way: `pages of at most ${QUERY_PAGE_ITEMS.toLocaleString('en')} items (\`queryPartition\`)`, ms: await runs(() => readPostings(org, 'exa', { consistent: true })) },
      { way: '16 uuid ranges, 4 at a time (`readPostings`, ranged)', ms: await runs(() => readPostings(org, 'exa', { consistent: true, ranged: true })) },
    ],
  };
}
const RUNS = 3;

async function measure(run: string, { size, progress }: Context) {
  const [count, rows] = [size(2000, 100), [] as { name: string; width: number; figures: Awaited<ReturnType<typeof throughput>> }[]];
  for (const [name, operation] of operations(run)) {
    progress(name);
    for (const width of [8, 16]) rows.push({ name, width, figures: await throughput(operation, width, count) });
  }
  return { count, rows, long: await longPartition(size(100_000, 10_000), progress) };
}

benchmark({
  title: 'DynamoDB operations the product uses, through shared/adapters/store/table.ts',
  data,
  measure,
  report: ({ measured: { count, rows, long } }) => ({
    "DynamoDB Local (the local stack's, started alone)": [
      `${count} operations per row after ${WARM_UP} unmeasured, from one client process; the store module's calls as the product makes them.`,
      table(rows, [['operation', (r) => r.name], ['in flight', (r) => r.width, 'right'], ['ops/s', (r) => r.figures.rate.toFixed(0), 'right'], ['p50 / p95 ms', (r) => `${r.figures.p50.toFixed(1)} / ${r.figures.p95.toFixed(1)}`, 'right']]),
    ],
    'One long partition read whole': [
      `${long.items.toLocaleString('en')} postings of one word prefix in one partition (a search every user of an organization that size matches), read whole and strongly consistent, ${RUNS} times each way. A page without a \`Limit\` costs DynamoDB Local the whole key range still ahead of it; a \`Limit\` bounds what each page reads.`,
      table(long.ways, [['read', (r) => r.way], ['each run, s', (r) => r.ms.map((ms) => (ms / 1000).toFixed(2)).join(', '), 'right']]),
    ],
  }),
});
