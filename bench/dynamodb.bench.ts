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
import { benchmark, table } from './harness/report';
import { throughput } from './harness/series';
import { tempDir } from './harness/stack';

const WIDTHS = [8, 16];
const ITEMS = 200;
const HOT_ITEMS = 8;

benchmark({
  name: 'dynamodb',
  script: 'bench:dynamodb',
  title: 'DynamoDB operations the product uses, through shared/store/table.ts',
  async run({ size, option, progress }) {
    const operations = size(2000, 100);
    const given = option('endpoint');
    const local = given ? undefined : await startDynamoDBLocal(tempDir('bench-dynamodb-'));
    const endpoint = given ?? local!.endpoint;
    // The store needs only the table; the rest of the configuration is required but unused here.
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      [envNames.tableName]: LOCAL_TABLE,
      [envNames.dynamodbEndpoint]: endpoint,
      [envNames.userPoolId]: 'unused',
      [envNames.userPoolClientId]: 'unused',
      [envNames.signingKey]: 'file:unused',
      [envNames.tokenIssuer]: 'http://unused',
    });
    try {
      await ensureTable(endpoint);
      const run = Date.now().toString(36);
      const item = (i: number) => ({ PK: `BENCH#${run}#${i % ITEMS}`, SK: 'ITEM' });
      for (let i = 0; i < ITEMS; i++) await store.putItem({ ...item(i), payload: 'x'.repeat(200) });
      for (let i = 0; i < 50; i++) await store.putItem({ PK: `BENCH#${run}#Q`, SK: `ROW#${String(i).padStart(3, '0')}`, payload: 'y'.repeat(200) });
      for (let i = 0; i < HOT_ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#HOT`, SK: `SHARD#${i}`, entries: {} });
      let n = 0;
      const cases: [string, () => Promise<unknown>][] = [
        ['GetItem', () => store.getItem(item(n++))],
        ['PutItem (conditional, new item)', () => store.putItem({ PK: `BENCH#${run}#NEW#${n++}`, SK: 'ITEM', payload: 'z'.repeat(200) }, { ConditionExpression: 'attribute_not_exists(PK)' })],
        [
          `UpdateItem (a map entry on ${HOT_ITEMS} hot items)`,
          () => {
            const i = n++;
            return store.updateItem({
              Key: { PK: `BENCH#${run}#HOT`, SK: `SHARD#${i % HOT_ITEMS}` },
              UpdateExpression: 'SET entries.#k = :v',
              ExpressionAttributeNames: { '#k': `k${i % 400}` },
              ExpressionAttributeValues: { ':v': 'v'.repeat(100) },
            });
          },
        ],
        ['Query (50 items)', () => store.queryPrefix(`BENCH#${run}#Q`, 'ROW#')],
        ['BatchGetItem (100 keys)', () => store.getItems(Array.from({ length: 100 }, (_, i) => item(i + n++)))],
        [
          'TransactWriteItems (2 puts)',
          () => {
            const pk = `BENCH#${run}#TX#${n++}`;
            return store.transactWrite([{ Put: { Item: { PK: pk, SK: 'A' }, ConditionExpression: 'attribute_not_exists(PK)' } }, { Put: { Item: { PK: pk, SK: 'B' } } }]);
          },
        ],
      ];
      const rows: { name: string; at: (Awaited<ReturnType<typeof throughput>> | string)[] }[] = [];
      for (const [name, operation] of cases) {
        progress(name);
        const at = [];
        for (const width of WIDTHS) at.push(await throughput(operation, width, operations, 200).catch((error: unknown) => `not supported (${(error as Error).name})`));
        rows.push({ name, at });
      }
      const cell = (f: (typeof rows)[number]['at'][number], show: (r: Exclude<typeof f, string>) => string) => (typeof f === 'string' ? f : show(f));
      return {
        [option('label') ?? (given ? `Endpoint ${given}` : 'DynamoDB Local (the local stack\'s, started alone)')]: [
          `${operations} operations per row and concurrency after 200 unmeasured, from one client process; the store module's calls as the product makes them. Percentiles nearest-rank.`,
          table(rows, [
            ['operation', (r) => r.name],
            ...WIDTHS.map((w, i): [string, (r: (typeof rows)[number]) => string, 'right'] => [`ops/s at ${w}`, (r) => cell(r.at[i]!, (f) => f.rate.toFixed(0)), 'right']),
            ...WIDTHS.map((w, i): [string, (r: (typeof rows)[number]) => string, 'right'] => [`p50 / p95 ms at ${w}`, (r) => cell(r.at[i]!, (f) => `${f.p50.toFixed(1)} / ${f.p95.toFixed(1)}`), 'right']),
          ]),
        ],
      };
    } finally {
      await local?.stop();
    }
  },
});
