/**
 * Raw DynamoDB reads, the denominators of the API ÷ raw ratios: bare SDK commands on the product's own
 * document client and table, keys from shared/store/keys.ts, and nothing of the product's logic.
 */
import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/clients/dynamodb';
import { config } from '../../shared/config';
import type { ItemKey } from '../../shared/store/keys';

type Item = Record<string, unknown>;
const primary = ({ PK, SK }: ItemKey) => ({ PK, SK });

export async function getItem(key: ItemKey): Promise<Item | undefined> {
  return (await documentClient().send(new GetCommand({ TableName: config().tableName, Key: primary(key) }))).Item;
}

/** BatchGetItem (at most 100 keys); what comes back unprocessed is asked for again at once. */
export async function batchGet(keys: ItemKey[]): Promise<{ items: Item[]; trips: number }> {
  const TableName = config().tableName;
  const items: Item[] = [];
  let pending: Item[] = keys.map(primary);
  let trips = 0;
  for (; pending.length > 0; trips++) {
    const out = await documentClient().send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending } } }));
    items.push(...(out.Responses?.[TableName] ?? []));
    pending = out.UnprocessedKeys?.[TableName]?.Keys ?? [];
  }
  return { items, trips };
}

/** `ProjectionExpression` and its names, for reading only `attributes`. */
export const projection = (attributes: readonly string[]) => ({
  ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
});

/** The Query input for the items of partition `pk` whose sort key starts with `prefix`, optionally projected. */
export const prefixQuery = (pk: string, prefix: string, attributes?: readonly string[]): Omit<QueryCommandInput, 'TableName'> => ({
  KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
  ExpressionAttributeValues: { ':pk': pk, ':sk': prefix },
  ...(attributes && projection(attributes)),
});

/**
 * The pages of a Query: all of them, or the first `limit` items (`Limit` lowered page by page to what
 * is still wanted). The items, their count (`Select: COUNT` returns no items) and the pages read.
 */
export async function query(input: Omit<QueryCommandInput, 'TableName' | 'Limit'>, limit?: number): Promise<{ items: Item[]; count: number; pages: number }> {
  const result = { items: [] as Item[], count: 0, pages: 0 };
  let start: Item | undefined;
  do {
    const Limit = limit === undefined ? undefined : limit - result.items.length;
    const page = await documentClient().send(new QueryCommand({ TableName: config().tableName, ...input, ...(Limit !== undefined && { Limit }), ExclusiveStartKey: start }));
    result.items.push(...(page.Items ?? []));
    result.count += page.Count ?? 0;
    result.pages++;
    start = page.LastEvaluatedKey;
  } while (start && (limit === undefined || result.items.length < limit));
  return result;
}
