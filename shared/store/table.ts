import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
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
import { config } from '../config';
import { GSI1, withoutKeys, type ItemKey } from './keys';

/** Thin helpers over the one table; conditional failures come back as `false`, never as SDK errors. */
const table = () => config().tableName;

export async function getItem<T>(key: ItemKey): Promise<T | undefined> {
  const { Item } = await documentClient().send(new GetCommand({ TableName: table(), Key: key }));
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

export async function deleteItem(input: Omit<DeleteCommandInput, 'TableName'>): Promise<boolean> {
  return conditional(() => documentClient().send(new DeleteCommand({ TableName: table(), ...input })));
}

/** The items of one GSI1 key (all pages). */
export async function queryIndex<T>(gsi1pk: string, gsi1sk?: string): Promise<T[]> {
  return queryAll<T>({
    IndexName: GSI1,
    KeyConditionExpression: gsi1sk ? 'GSI1PK = :pk AND GSI1SK = :sk' : 'GSI1PK = :pk',
    ExpressionAttributeValues: gsi1sk ? { ':pk': gsi1pk, ':sk': gsi1sk } : { ':pk': gsi1pk },
  });
}

async function queryAll<T>(input: Omit<QueryCommandInput, 'TableName'>): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(new QueryCommand({ TableName: table(), ...input, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []).map((item) => withoutKeys<T>(item)));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
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
