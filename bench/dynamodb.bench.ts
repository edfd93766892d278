/**
 * `npm run bench:dynamodb [-- --endpoint <url>] [-- --label <name>]`: the DynamoDB operations the
 * product uses, through the product's own store module (shared/store/table.ts), at the benchmarks'
 * concurrency (8 and 16 requests in flight). Without `--endpoint` it starts DynamoDB Local as the local
 * stack does (data on disk, in a temporary directory); with one it measures any DynamoDB-compatible
 * endpoint (dynalite, for the README's comparison). Prints one Markdown table.
 */
import { performance } from 'node:perf_hooks';
import { hardware, loadAverage, percentile, runBenchmark, tempDir } from './support';

const OPERATIONS = 2000;
const CONCURRENCY = [8, 16];
const ITEMS = 200;
const QUERY_ITEMS = 50;
const HOT_ITEMS = 8;

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main(): Promise<void> {
  const given = option('endpoint');
  const { startDynamoDBLocal } = await import('../infra/local/dynamodb-local');
  const { ensureTable, LOCAL_CREDENTIALS, LOCAL_TABLE } = await import('../infra/local/provision');
  const local = given ? undefined : await startDynamoDBLocal(tempDir('bench-dynamodb-'));
  const endpoint = given ?? local!.endpoint;
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: LOCAL_TABLE,
    DYNAMODB_ENDPOINT: endpoint,
    // The store needs only the table; the rest of the configuration is required but unused here.
    USER_POOL_ID: 'unused',
    USER_POOL_CLIENT_ID: 'unused',
    SIGNING_KEY: 'file:unused',
    TOKEN_ISSUER: 'http://unused',
  });
  const store = await import('../shared/store/table');
  try {
    await ensureTable(endpoint);
    const run = Date.now().toString(36);
    const itemKey = (i: number) => ({ PK: `BENCH#${run}#${i % ITEMS}`, SK: 'ITEM' });
    for (let i = 0; i < ITEMS; i++) await store.putItem({ ...itemKey(i), name: `item ${i}`, payload: 'x'.repeat(200) });
    for (let i = 0; i < QUERY_ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#Q`, SK: `ROW#${String(i).padStart(3, '0')}`, payload: 'y'.repeat(200) });
    for (let i = 0; i < HOT_ITEMS; i++) await store.putItem({ PK: `BENCH#${run}#HOT`, SK: `SHARD#${i}`, entries: {} });

    let serial = 0;
    const operations: [string, () => Promise<unknown>][] = [
      ['GetItem', () => store.getItem(itemKey(serial++))],
      ['PutItem (conditional, new item)', () => store.putItem({ PK: `BENCH#${run}#NEW#${serial++}`, SK: 'ITEM', payload: 'z'.repeat(200) }, { ConditionExpression: 'attribute_not_exists(PK)' })],
      [
        'UpdateItem (map entry on 8 hot items)',
        () => {
          const i = serial++;
          return store.updateItem({
            Key: { PK: `BENCH#${run}#HOT`, SK: `SHARD#${i % HOT_ITEMS}` },
            UpdateExpression: 'SET entries.#k = :v',
            ExpressionAttributeNames: { '#k': `k${i % 400}` },
            ExpressionAttributeValues: { ':v': 'v'.repeat(100) },
          });
        },
      ],
      ['Query (50 items)', () => store.queryPrefix(`BENCH#${run}#Q`, 'ROW#')],
      ['BatchGetItem (100 keys)', () => store.getItems(Array.from({ length: 100 }, (_, i) => itemKey(i + serial++)))],
      [
        'TransactWriteItems (2 puts)',
        () => {
          const i = serial++;
          return store.transactWrite([
            { Put: { Item: { PK: `BENCH#${run}#TX#${i}`, SK: 'A' }, ConditionExpression: 'attribute_not_exists(PK)' } },
            { Put: { Item: { PK: `BENCH#${run}#TX#${i}`, SK: 'B' } } },
          ]);
        },
      ],
    ];

    const label = option('label') ?? (given ? given : 'DynamoDB Local 3.3.1');
    console.log(`\n${label}: ${OPERATIONS} operations per row after 200 unmeasured, ${hardware()}, load ${loadAverage(3)} at start\n`);
    console.log(`| operation | ${CONCURRENCY.map((c) => `ops/s at ${c}`).join(' | ')} | ${CONCURRENCY.map((c) => `p50 / p95 ms at ${c}`).join(' | ')} |`);
    console.log(`|---|${CONCURRENCY.map(() => '---:').join('|')}|${CONCURRENCY.map(() => '---:').join('|')}|`);
    for (const [name, operation] of operations) {
      const rates: string[] = [];
      const latencies: string[] = [];
      for (const width of CONCURRENCY) {
        const outcome = await measure(operation, width).catch((error: unknown) => (error instanceof Error ? error.name : 'failed'));
        if (typeof outcome === 'string') {
          rates.push(`not supported (${outcome})`);
          latencies.push('–');
          continue;
        }
        rates.push(outcome.rate.toFixed(0));
        latencies.push(`${outcome.p50.toFixed(1)} / ${outcome.p95.toFixed(1)}`);
      }
      console.log(`| ${name} | ${rates.join(' | ')} | ${latencies.join(' | ')} |`);
    }
  } finally {
    await local?.stop();
  }
}

/** Runs `operation` OPERATIONS times with `width` in flight (after a warm-up): throughput and latencies. */
async function measure(operation: () => Promise<unknown>, width: number) {
  const drive = async (count: number, samples: number[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next++ < count) {
          const started = performance.now();
          await operation();
          samples.push(performance.now() - started);
        }
      }),
    );
  };
  await drive(200, []);
  const samples: number[] = [];
  const started = performance.now();
  await drive(OPERATIONS, samples);
  const seconds = (performance.now() - started) / 1000;
  return { rate: OPERATIONS / seconds, p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

runBenchmark(main);
