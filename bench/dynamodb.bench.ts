/** `npm run bench:dynamodb [-- --endpoint <url>]` (docs/benchmarks.md#dynamodb-operations): the store operations the product uses. */
import { startDynamoDBLocal } from '../infra/local/dynamodb-local';
import { ensureTable, LOCAL_CREDENTIALS, LOCAL_TABLE } from '../infra/local/provision';
import { envNames } from '../shared/kernel/config';
import * as store from '../shared/adapters/store/table';
import { benchmark, type Context } from './harness/benchmark';
import { percentile, timed } from './harness/series';
import { onCleanUp, placeholderConfig, tempDir } from './harness/stack';
import { table } from './harness/tables';

const [ITEMS, HOT_ITEMS] = [200, 8];

/** The endpoint (DynamoDB Local started here unless given) and the table, with the items the operations read. */
async function data({ option }: Context) {
  const local = option('endpoint') ? undefined : await startDynamoDBLocal(tempDir('bench-dynamodb-'));
  if (local) onCleanUp(() => local.stop());
  const endpoint = option('endpoint') ?? local!.endpoint;
  // The store needs only the table; the rest of the configuration is required but unused here.
  const credentials = { AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey };
  Object.assign(process.env, { ...placeholderConfig, ...credentials, [envNames.tableName]: LOCAL_TABLE, [envNames.dynamodbEndpoint]: endpoint });
  await ensureTable(endpoint);
  const run = Date.now().toString(36);
  for (let i = 0; i < ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#${i}`, SK: 'ITEM', payload: 'x'.repeat(200) });
  for (let i = 0; i < 50; i++) await store.putItem({ PK: `BENCH#${run}#Q`, SK: `ROW#${String(i).padStart(3, '0')}`, payload: 'y'.repeat(200) });
  for (let i = 0; i < HOT_ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#HOT`, SK: `SHARD#${i}`, entries: {} });
  return { endpoint: local ? "DynamoDB Local (the local stack's, started alone)" : `Endpoint ${endpoint}`, run };
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

/** `count` operations with `width` in flight, after `warmUp` unmeasured ones: rate per second and latencies. */
async function throughput(operation: () => Promise<unknown>, width: number, count: number, warmUp: number) {
  const drive = async (total: number, samples: number[]) => {
    let next = 0;
    const lane = async () => {
      while (next++ < total) samples.push((await timed(operation))[0]);
    };
    await Promise.all(Array.from({ length: width }, lane));
  };
  await drive(warmUp, []);
  const samples: number[] = [];
  const [elapsed] = await timed(() => drive(count, samples));
  return { rate: count / (elapsed / 1000), p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

/** Each operation at 8 and 16 in flight, after 200 unmeasured; an operation the endpoint refuses is a row that says so. */
async function measure({ run }: Awaited<ReturnType<typeof data>>, { size, progress }: Context) {
  const [count, rows] = [size(2000, 100), [] as { name: string; width: number; figures: Awaited<ReturnType<typeof throughput>> | string }[]];
  for (const [name, operation] of operations(run)) {
    progress(name);
    for (const width of [8, 16]) rows.push({ name, width, figures: await throughput(operation, width, count, 200).catch((error: Error) => `not supported (${error.name})`) });
  }
  return { count, rows };
}

benchmark({
  title: 'DynamoDB operations the product uses, through shared/adapters/store/table.ts',
  data,
  measure,
  report: ({ data: { endpoint }, measured: { count, rows } }) => ({
    [endpoint]: [
      `${count} operations per row after 200 unmeasured, from one client process; the store module's calls as the product makes them.`,
      table(rows, [['operation', (r) => r.name], ['in flight', (r) => r.width, 'right'], ['ops/s', (r) => (typeof r.figures === 'string' ? r.figures : r.figures.rate.toFixed(0)), 'right'],
        ['p50 / p95 ms', (r) => (typeof r.figures === 'string' ? '–' : `${r.figures.p50.toFixed(1)} / ${r.figures.p95.toFixed(1)}`), 'right']]),
    ],
  }),
});
