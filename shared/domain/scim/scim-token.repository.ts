import { keys } from '../../adapters/store/keys';
import { getItem, queryPrefix, transactWrite, updateItem, type TableWrite } from '../../adapters/store/table';
import type { Access } from '../users/access-template';

/** SCIM tokens in the store: one item per token under its organization, and a count of them (docs/api/scim.md). */

export interface ScimTokenRecord {
  id: string;
  orgUuid: string;
  description: string;
  /** The SHA-256 digest of the token, hex. */
  digest: string;
  /** The role and grants of a user the directory creates without the access extension. */
  defaultAccess?: Access;
  createdAt: string;
  createdBy: string;
  /** When it stops working; never when absent. */
  expiresAt?: string;
  lastUsedAt?: string;
}

/** The most tokens an organization holds at once: one per connected directory, with room to rotate. */
export const MAX_SCIM_TOKENS = 10;

/**
 * The count's write: `if_not_exists` starts it from the tokens listed, so an organization whose
 * tokens predate the count is counted right from its first change.
 */
const countWrite = (orgUuid: string, listed: number, change: 1 | -1): TableWrite => ({
  Update: {
    Key: keys.scimTokenCount(orgUuid),
    UpdateExpression: 'SET tokens = if_not_exists(tokens, :listed) + :change',
    ...(change > 0 ? { ConditionExpression: 'attribute_not_exists(tokens) OR tokens < :max' } : {}),
    ExpressionAttributeValues: { ':listed': listed, ':change': change, ...(change > 0 ? { ':max': MAX_SCIM_TOKENS } : {}) },
  },
});

/** The organization's tokens (one Query). */
export async function scimTokensOf(orgUuid: string): Promise<ScimTokenRecord[]> {
  const { PK, SKPrefix } = keys.scimTokensOf(orgUuid);
  return queryPrefix<ScimTokenRecord>(PK, SKPrefix);
}

export async function readScimToken(orgUuid: string, tokenId: string): Promise<ScimTokenRecord | undefined> {
  return getItem<ScimTokenRecord>(keys.scimToken(orgUuid, tokenId));
}

/** Writes a new token, its count moved from `listed` and `alongside` (its audit event), in one transaction; false past `MAX_SCIM_TOKENS`. */
export async function putScimToken(record: ScimTokenRecord, listed: number, alongside: TableWrite[]): Promise<boolean> {
  const put: TableWrite = { Put: { Item: { ...keys.scimToken(record.orgUuid, record.id), type: 'SCIMTOKEN', ...record }, ConditionExpression: 'attribute_not_exists(PK)' } };
  const failed = await transactWrite([countWrite(record.orgUuid, listed, 1), put, ...alongside]);
  return !failed.includes(0);
}

/** Deletes a token, its count moved from `listed` and `alongside` (its audit event), in one transaction; false when there is no such token. */
export async function deleteScimToken(orgUuid: string, tokenId: string, listed: number, alongside: TableWrite[]): Promise<boolean> {
  const remove: TableWrite = { Delete: { Key: keys.scimToken(orgUuid, tokenId), ConditionExpression: 'attribute_exists(PK)' } };
  const failed = await transactWrite([remove, countWrite(orgUuid, listed, -1), ...alongside]);
  return !failed.includes(0);
}

/** Notes when a token was last used. */
export async function noteScimTokenUse(record: ScimTokenRecord, now: Date): Promise<void> {
  // Conditional on the item existing, so a revocation meanwhile is not undone by a write that recreates it.
  await updateItem({
    Key: keys.scimToken(record.orgUuid, record.id),
    UpdateExpression: 'SET lastUsedAt = :now',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':now': now.toISOString() },
  });
}
