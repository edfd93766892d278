/**
 * `npm run bench:dynamodb [-- --endpoint <url>] [-- --label <name>]`: the DynamoDB operations the
 * product uses, through the product's own store module (shared/store/table.ts), 8 and 16 requests in
 * flight (the benchmarks' and the bulk worker's concurrency). Without `--endpoint` it starts DynamoDB
 * Local as the local stack does (data on disk, in a temporary directory); with one it measures any
 * DynamoDB-compatible endpoint. A run writes its report beside the others (docs/benchmarks.md).
 */
import { envNames } from '../shared/config';
import { startDynamoDBLocal } from '../infra/local/dynamodb-local';
import { ensureTable, LOCAL_CREDENTIALS, LOCAL_TABLE } from '../infra/local/provision';
import * as store from '../shared/store/table';
import { benchmark, onCleanUp, placeholderConfig, table, tempDir, throughput, type Column, type Context } from './harness';

const WIDTHS = [8, 16];
const ITEMS = 200;
const HOT_ITEMS = 8;

/** The endpoint (DynamoDB Local started here unless given) and the table, with the items the operations read. */
async function data({ option }: Context) {
  const given = option('endpoint');
  const local = given ? undefined : await startDynamoDBLocal(tempDir('bench-dynamodb-'));
  if (local) onCleanUp(() => local.stop());
  const endpoint = given ?? local!.endpoint;
  // The store needs only the table; the rest of the configuration is required but unused here.
  const credentials = { AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey };
  Object.assign(process.env, { ...placeholderConfig, ...credentials, [envNames.tableName]: LOCAL_TABLE, [envNames.dynamodbEndpoint]: endpoint });
  await ensureTable(endpoint);
  const run = Date.now().toString(36);
  for (let i = 0; i < ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#${i % ITEMS}`, SK: 'ITEM', payload: 'x'.repeat(200) });
  for (let i = 0; i < 50; i++) await store.putItem({ PK: `BENCH#${run}#Q`, SK: `ROW#${String(i).padStart(3, '0')}`, payload: 'y'.repeat(200) });
  for (let i = 0; i < HOT_ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#HOT`, SK: `SHARD#${i}`, entries: {} });
  return { given, run };
}
type Data = Awaited<ReturnType<typeof data>>;

/** Each operation as the product makes it; `n` counts the operations so that each writes or reads its own item. */
function operations(run: string): [string, () => Promise<unknown>][] {
  let n = 0;
  const item = (i: number) => ({ PK: `BENCH#${run}#${i % ITEMS}`, SK: 'ITEM' });
  const updateHot = (i: number) =>
    store.updateItem({
      Key: { PK: `BENCH#${run}#HOT`, SK: `SHARD#${i % HOT_ITEMS}` },
      UpdateExpression: 'SET entries.#k = :v',
      ExpressionAttributeNames: { '#k': `k${i % 400}` },
      ExpressionAttributeValues: { ':v': 'v'.repeat(100) },
    });
  const transact = (pk: string) => store.transactWrite([{ Put: { Item: { PK: pk, SK: 'A' }, ConditionExpression: 'attribute_not_exists(PK)' } }, { Put: { Item: { PK: pk, SK: 'B' } } }]);
  return [
    ['GetItem', () => store.getItem(item(n++))],
    ['PutItem (conditional, new item)', () => store.putItem({ PK: `BENCH#${run}#NEW#${n++}`, SK: 'ITEM', payload: 'z'.repeat(200) }, { ConditionExpression: 'attribute_not_exists(PK)' })],
    [`UpdateItem (a map entry on ${HOT_ITEMS} hot items)`, () => updateHot(n++)],
    ['Query (50 items)', () => store.queryPrefix(`BENCH#${run}#Q`, 'ROW#')],
    ['BatchGetItem (100 keys)', () => store.getItems(Array.from({ length: 100 }, (_, i) => item(i + n++)))],
    ['TransactWriteItems (2 puts)', () => transact(`BENCH#${run}#TX#${n++}`)],
  ];
}

/** Each operation at each width, after 200 unmeasured; an operation the endpoint refuses is a row that says so. */
async function measure(d: Data, { size, progress }: Context) {
  const count = size(2000, 100);
  const rows: { name: string; at: (Awaited<ReturnType<typeof throughput>> | string)[] }[] = [];
  for (const [name, operation] of operations(d.run)) {
    progress(name);
    const at = [];
    for (const width of WIDTHS) at.push(await throughput(operation, width, count, 200).catch((error: unknown) => `not supported (${(error as Error).name})`));
    rows.push({ name, at });
  }
  return { count, rows };
}
type Row = Awaited<ReturnType<typeof measure>>['rows'][number];

const cell = (at: Row['at'][number], show: (figure: Exclude<Row['at'][number], string>) => string) => (typeof at === 'string' ? at : show(at));

benchmark<Data, Awaited<ReturnType<typeof measure>>>({
  name: 'dynamodb',
  script: 'bench:dynamodb',
  title: 'DynamoDB operations the product uses, through shared/store/table.ts',
  data,
  measure,
  report: ({ data: d, measured: { count, rows } }, { option }) => ({
    [option('label') ?? (d.given ? `Endpoint ${d.given}` : 'DynamoDB Local (the local stack\'s, started alone)')]: [
      `${count} operations per row and concurrency after 200 unmeasured, from one client process; the store module's calls as the product makes them. Percentiles nearest-rank.`,
      table(rows, [
        ['operation', (r) => r.name],
        ...WIDTHS.map((w, i): Column<Row> => [`ops/s at ${w}`, (r) => cell(r.at[i]!, (f) => f.rate.toFixed(0)), 'right']),
        ...WIDTHS.map((w, i): Column<Row> => [`p50 / p95 ms at ${w}`, (r) => cell(r.at[i]!, (f) => `${f.p50.toFixed(1)} / ${f.p95.toFixed(1)}`), 'right']),
      ]),
    ],
  }),
});
