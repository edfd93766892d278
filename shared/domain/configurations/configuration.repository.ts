import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../adapters/clients/dynamodb';
import { config } from '../../kernel/config';
import { keys } from '../../adapters/store/keys';
import { getItem, queryPrefix, transactWrite, type TableWrite } from '../../adapters/store/table';
import { replacedOnSave, type ConfigurationRecord } from './configuration.fields';

/** A user's configuration entry (`configuration.fields.ts`). `botUuid` is absent on a general entry. */
export type ConfigurationEntry = ConfigurationRecord;

export async function getConfiguration(userUuid: string, botUuid: string | undefined, key: string) {
  return getItem<ConfigurationEntry>(keys.configuration(userUuid, botUuid, key));
}

export async function listConfigurations(userUuid: string, botUuid?: string): Promise<ConfigurationEntry[]> {
  const { PK, SKPrefix } = keys.configurationsOf(userUuid, botUuid);
  return queryPrefix<ConfigurationEntry>(PK, SKPrefix);
}

/**
 * Changes an existing entry's value, with `alongside` (its audit event) in the same transaction;
 * false when there is none (nothing is written then).
 */
export async function updateConfigurationValue(entry: Omit<ConfigurationEntry, 'id'>, alongside: readonly TableWrite[] = []): Promise<boolean> {
  const update: TableWrite = {
    Update: {
      Key: keys.configuration(entry.userUuid, entry.botUuid, entry.key),
      UpdateExpression: `SET ${replacedOnSave.map((name) => `#${name} = :${name}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: Object.fromEntries(replacedOnSave.map((name) => [`#${name}`, name])),
      ExpressionAttributeValues: Object.fromEntries(replacedOnSave.map((name) => [`:${name}`, entry[name]])),
    },
  };
  return (await transactWrite([update, ...alongside])).length === 0;
}

/**
 * Writes a new entry with `alongside` (its audit event) in the same transaction; false when one with
 * the same key (and bot) appeared meanwhile (nothing is written then).
 */
export async function insertConfiguration(entry: ConfigurationEntry, alongside: readonly TableWrite[] = []): Promise<boolean> {
  const put: TableWrite = {
    Put: { Item: { ...keys.configuration(entry.userUuid, entry.botUuid, entry.key), type: 'CONF', ...entry }, ConditionExpression: 'attribute_not_exists(PK)' },
  };
  return (await transactWrite([put, ...alongside])).length === 0;
}

/** The next entry id of a user: an atomic counter, so ids never repeat. */
export async function nextConfigurationId(userUuid: string): Promise<number> {
  const { Attributes } = await documentClient().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.configurationCounter(userUuid),
      UpdateExpression: 'ADD lastId :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Attributes!.lastId as number;
}
