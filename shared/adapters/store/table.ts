import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DeleteCommandInput,
  type PutCommandInput,
  type QueryCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../clients/dynamodb';
import { config } from '../../kernel/config';
import { GSI1, withoutKeys, type ItemKey } from './keys';
import { eachLimited, sleep } from '../../kernel/retry';

/** Thin helpers over the one table; conditional failures come back as `false`, never as SDK errors. */
const table = () => config().tableName;

/** A key as DynamoDB takes it: only `PK` and `SK`, even when given an item's index keys too. */
const primary = ({ PK, SK }: ItemKey): ItemKey => ({ PK, SK });

export async function getItem<T>(key: ItemKey, options?: { consistent?: boolean }): Promise<T | undefined> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: table(), Key: primary(key), ...(options?.consistent ? { ConsistentRead: true } : {}) }),
  );
  return Item ? withoutKeys<T>(Item) : undefined;
}

/** Writes an item; returns false when `condition` does not hold. */
export async function putItem(
  item: Record<string, unknown>,
  condition?: Omit<PutCommandInput, 'TableName' | 'Item'>,
): Promise<boolean> {
  return conditional(() => documentClient().send(new PutCommand({ TableName: table(), Item: item, ...condition })));
}

export async function updateItem(input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
  return conditional(() => documentClient().send(new UpdateCommand({ TableName: table(), ...input })));
}

/** Updates an item and returns it as written; undefined when the condition does not hold. */
export async function updateItemReturning<T>(input: Omit<UpdateCommandInput, 'TableName' | 'ReturnValues'>): Promise<T | undefined> {
  let written: T | undefined;
  const applied = await conditional(async () => {
    const { Attributes } = await documentClient().send(new UpdateCommand({ TableName: table(), ...input, ReturnValues: 'ALL_NEW' }));
    written = Attributes ? withoutKeys<T>(Attributes) : undefined;
  });
  return applied ? written : undefined;
}

export async function deleteItem(input: Omit<DeleteCommandInput, 'TableName'>): Promise<boolean> {
  return conditional(() => documentClient().send(new DeleteCommand({ TableName: table(), ...input })));
}

/**
 * Every item under a partition key whose sort key starts with a prefix (all pages), optionally only
 * some attributes.
 */
export async function queryPrefix<T>(pk: string, skPrefix: string, attributes?: readonly string[]): Promise<T[]> {
  const projection = attributes
    ? {
        ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
        ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
      }
    : {};
  return queryAll<T>({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
    ...projection,
  });
}

const BATCH_GET_LIMIT = 100;

/** The items that exist among `itemKeys` (any order); `consistent` reads them strongly consistent. */
export async function getItems<T>(itemKeys: ItemKey[], options?: { consistent?: boolean }): Promise<T[]> {
  return (await batchGet(itemKeys, options?.consistent)).map((item) => withoutKeys<T>(item));
}

/** One string per key, to look items up in what `getItemsByKey` returns. */
export const keyId = ({ PK, SK }: ItemKey): string => `${PK}\u0000${SK}`;

/** The items that exist among `itemKeys`, by `keyId`: one read for items of different kinds. */
export async function getItemsByKey<T>(itemKeys: ItemKey[]): Promise<Map<string, T>> {
  const items = await batchGet(itemKeys);
  return new Map(items.map((item) => [keyId(item as unknown as ItemKey), withoutKeys<T>(item)]));
}

/** BatchGetItem in batches of 100, asking again for what DynamoDB leaves unprocessed. */
async function batchGet(itemKeys: ItemKey[], consistent = false): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  if (itemKeys.length === 0) return found;
  for (let start = 0; start < itemKeys.length; start += BATCH_GET_LIMIT) {
    let pending: ItemKey[] = itemKeys.slice(start, start + BATCH_GET_LIMIT);
    for (let attempt = 0; pending.length > 0; attempt++) {
      // A first retry at once: unprocessed keys are usually the 16 MB response-size cap, not throttling.
      // Later retries back off.
      if (attempt > 1) await sleep(2 ** attempt * 25);
      const { Responses, UnprocessedKeys } = await documentClient().send(
        new BatchGetCommand({ RequestItems: { [table()]: { Keys: pending.map(primary), ...(consistent ? { ConsistentRead: true } : {}) } } }),
      );
      found.push(...(Responses?.[table()] ?? []));
      pending = (UnprocessedKeys?.[table()]?.Keys ?? []) as ItemKey[];
      if (attempt >= 5 && pending.length > 0) throw new Error('DynamoDB left keys unprocessed after 6 attempts');
    }
  }
  return found;
}

/** The items of one GSI1 key (all pages). */
export async function queryIndex<T>(gsi1pk: string, gsi1sk?: string): Promise<T[]> {
  return queryAll<T>({
    IndexName: GSI1,
    KeyConditionExpression: gsi1sk ? 'GSI1PK = :pk AND GSI1SK = :sk' : 'GSI1PK = :pk',
    ExpressionAttributeValues: gsi1sk ? { ':pk': gsi1pk, ':sk': gsi1sk } : { ':pk': gsi1pk },
  });
}

/**
 * One Query of GSI1 under `gsi1pk` (sort keys starting with `prefix`, when given, and from the sort
 * key `from` on, when given with it), in sort-key order: at most `limit` items with their keys, and
 * where the next Query starts (`start`: the last item's full key, table's and index's), undefined once
 * the range is read.
 */
export async function queryIndexPage(
  gsi1pk: string,
  options: { limit: number; prefix?: string; from?: string; start?: Record<string, unknown>; attributes?: readonly string[] },
): Promise<{ items: Record<string, unknown>[]; next?: Record<string, unknown> }> {
  const { limit, prefix, from, start, attributes } = options;
  const range =
    prefix === undefined
      ? { condition: 'GSI1PK = :pk', values: {} }
      : from === undefined
        ? { condition: 'GSI1PK = :pk AND begins_with(GSI1SK, :prefix)', values: { ':prefix': prefix } }
        : // Past every sort key of the prefix: what follows it in these keys sorts below U+FFFF.
          { condition: 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to', values: { ':from': from, ':to': `${prefix}\uffff` } };
  const page = await documentClient().send(
    new QueryCommand({
      TableName: table(),
      IndexName: GSI1,
      KeyConditionExpression: range.condition,
      ExpressionAttributeValues: { ':pk': gsi1pk, ...range.values },
      Limit: limit,
      ...(attributes
        ? {
            ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
            ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
          }
        : {}),
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return { items: page.Items ?? [], ...(page.LastEvaluatedKey ? { next: page.LastEvaluatedKey } : {}) };
}

/**
 * Deletes the items of `itemKeys`, `parallel` DeleteItem calls at once, none begun after `until`
 * (epoch milliseconds), when given; answers how many it deleted. Unconditional: for items whose end
 * is already decided. (Not BatchWriteItem: no function is granted it, and a batch saves round trips,
 * not capacity.)
 */
export async function deleteItems(itemKeys: readonly ItemKey[], options: { parallel?: number; until?: number } = {}): Promise<number> {
  let deleted = 0;
  await eachLimited(itemKeys, options.parallel ?? 16, async (key) => {
    if (options.until !== undefined && Date.now() >= options.until) return;
    await documentClient().send(new DeleteCommand({ TableName: table(), Key: primary(key) }));
    deleted++;
  });
  return deleted;
}

/**
 * The most items a Query asks for in one page, when it reads on until it has them all (DynamoDB's own
 * 1 MB bound may cut a page sooner). Without it DynamoDB Local reads a page's whole key range before
 * cutting it: reading a partition of 100,000 postings page after page took 19 to 28 s, and 2.2 s in
 * pages of at most 3,000 items (docs/benchmarks.md#dynamodb-operations). In DynamoDB a page costs its
 * items' units either way; pages of this many small items are about as large as its 1 MB ones.
 */
export const QUERY_PAGE_ITEMS = 2_000;

/**
 * The first `limit` items of a partition in sort-key order (`forward`) or its reverse, all of them
 * when `limit` is undefined (from the sort key `after` on, or below `before`, or `between` two
 * sort keys inclusive, when given; past the sort key
 * `exclusiveStart` in the direction read, when given: a cursor's position); reads page after page
 * until it has them.
 */
export async function queryPartition<T>(
  pk: string,
  options: {
    forward: boolean;
    limit?: number;
    attributes?: readonly string[];
    consistent?: boolean;
    after?: string;
    before?: string;
    between?: readonly [string, string];
    exclusiveStart?: string;
  },
): Promise<T[]> {
  const { forward, limit, attributes, consistent, after, before, between, exclusiveStart } = options;
  const range =
    between !== undefined
      ? { condition: 'PK = :pk AND SK BETWEEN :low AND :high', values: { ':low': between[0], ':high': between[1] } }
      : after !== undefined
        ? { condition: 'PK = :pk AND SK >= :after', values: { ':after': after } }
        : before !== undefined
          ? { condition: 'PK = :pk AND SK < :before', values: { ':before': before } }
          : { condition: 'PK = :pk', values: {} };
  const items: T[] = [];
  let start: Record<string, unknown> | undefined = exclusiveStart !== undefined ? { PK: pk, SK: exclusiveStart } : undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: range.condition,
        ExpressionAttributeValues: { ':pk': pk, ...range.values },
        ScanIndexForward: forward,
        ...(consistent ? { ConsistentRead: true } : {}),
        Limit: Math.min(QUERY_PAGE_ITEMS, limit === undefined ? Infinity : limit - items.length),
        ...(attributes
          ? {
              ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
              ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
            }
          : {}),
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []).map((item) => withoutKeys<T>(item)));
    start = page.LastEvaluatedKey;
  } while (start && (limit === undefined || items.length < limit));
  return items;
}

async function queryAll<T>(input: Omit<QueryCommandInput, 'TableName'>): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(new QueryCommand({ TableName: table(), Limit: QUERY_PAGE_ITEMS, ...input, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []).map((item) => withoutKeys<T>(item)));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type WithoutTable<T> = T extends object ? Omit<T, 'TableName'> : T;

/** One write of a transaction, on this table: a Put, Update, Delete or ConditionCheck. */
export type TableWrite = { [K in keyof TransactItem]: WithoutTable<TransactItem[K]> };

const TRANSACTION_ATTEMPTS = 4;

/**
 * Writes all of `writes` or none (TransactWriteItems: at most 100 items, no item twice). Returns the
 * indexes of the writes whose condition failed, empty when everything was written. A transaction that
 * collided with another one on the same items is tried again, after a short wait.
 */
export async function transactWrite(writes: TableWrite[]): Promise<number[]> {
  const TransactItems = writes.map((write) =>
    Object.fromEntries(Object.entries(write).map(([kind, input]) => [kind, { TableName: table(), ...input }])),
  ) as TransactItem[];
  for (let attempt = 1; ; attempt++) {
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems }));
      return [];
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = error.CancellationReasons?.map((reason) => reason.Code) ?? [];
      const failed = codes.flatMap((code, index) => (code === 'ConditionalCheckFailed' ? [index] : []));
      if (failed.length > 0) return failed;
      if (!codes.includes('TransactionConflict') || attempt >= TRANSACTION_ATTEMPTS) throw error;
      await sleep(2 ** attempt * 10 + Math.random() * 20);
    }
  }
}

async function conditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
