import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthenticatedError } from '../errors';
import { keys } from '../store/keys';
import { deleteItem, getItem, putItem, queryPrefix, updateItem } from '../store/table';
import { accessOrThrow, checkGrants } from '../users/user-changes';
import type { Access, AccessInput } from '../users/access-template';
import type { OrgScope, Provisioner } from '../users/org-scope';

/**
 * SCIM tokens: the credentials an organization's identity provider (Okta, Entra ID) provisions users
 * with. An ADMIN issues one per connected directory; the token is shown once and only its SHA-256
 * digest is kept. A token reaches its own organization's SCIM endpoints and nothing else (the user
 * routes verify user access tokens only, and this module reads the token under the path's organization).
 */

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
  lastUsedAt?: string;
}

/** What the SCIM endpoints act as: the token, its organization and the default access it carries. */
export interface ScimCaller {
  token: ScimTokenRecord;
  scope: OrgScope & { caller: Provisioner };
}

/** Tokens read `scim_<id without dashes>_<secret>`: the id finds the item, the whole is compared by digest. */
const TOKEN = /^scim_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
/** Writing `lastUsedAt` on every request would double the writes of a sync; once a minute is enough to see a token in use. */
const LAST_USED_EVERY_MS = 60_000;

const digestOf = (token: string) => createHash('sha256').update(token).digest('hex');
const dashed = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** Issues a token for the scope's organization; answers it this once, with its record. */
export async function issueScimToken(
  scope: OrgScope,
  input: { description?: string; defaultAccess?: AccessInput },
): Promise<{ record: ScimTokenRecord; token: string }> {
  const defaultAccess = input.defaultAccess ? accessOrThrow(input.defaultAccess) : undefined;
  if (defaultAccess) await checkGrants(scope.orgUuid, defaultAccess);
  const id = randomUUID();
  const token = `scim_${id.replace(/-/g, '')}_${randomBytes(32).toString('base64url')}`;
  const record: ScimTokenRecord = {
    id,
    orgUuid: scope.orgUuid,
    description: input.description?.trim() || 'SCIM provisioning',
    digest: digestOf(token),
    ...(defaultAccess ? { defaultAccess } : {}),
    createdAt: new Date().toISOString(),
    createdBy: scope.caller.uuid,
  };
  await putItem({ ...keys.scimToken(scope.orgUuid, id), type: 'SCIMTOKEN', ...record }, { ConditionExpression: 'attribute_not_exists(PK)' });
  return { record, token };
}

/** The organization's tokens, oldest first (digests are never answered). */
export async function listScimTokens(scope: OrgScope): Promise<ScimTokenRecord[]> {
  const { PK, SKPrefix } = keys.scimTokensOf(scope.orgUuid);
  const tokens = await queryPrefix<ScimTokenRecord>(PK, SKPrefix);
  return tokens.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Revokes a token: the next request with it is refused (every request reads the token's item). */
export async function revokeScimToken(scope: OrgScope, tokenId: string): Promise<void> {
  const deleted = await deleteItem({ Key: keys.scimToken(scope.orgUuid, tokenId), ConditionExpression: 'attribute_exists(PK)' });
  if (!deleted) throw new NotFoundError('The organization has no SCIM token with this id');
}

const refused = () =>
  new UnauthenticatedError('A valid SCIM token of this organization is required: send Authorization: Bearer <token issued by POST …/scim-tokens>', {
    tokenRefused: true,
  });

/**
 * The SCIM caller of a request for `orgUuid`'s SCIM endpoints: a `Bearer` token of the SCIM form whose
 * item exists under that organization and whose digest matches. Anything else (no token, a user's
 * access token, another organization's or a revoked SCIM token) is refused alike.
 */
export async function authenticateScim(authorization: string | undefined, orgUuid: string | undefined): Promise<ScimCaller> {
  const token = authorization?.trim().match(/^Bearer\s+(\S+)$/i)?.[1];
  const parts = token ? TOKEN.exec(token) : null;
  if (!token || !parts || !orgUuid) throw refused();
  const record = await getItem<ScimTokenRecord>(keys.scimToken(orgUuid, dashed(parts[1]!)));
  const expected = record ? Buffer.from(record.digest, 'hex') : Buffer.alloc(32);
  const matches = timingSafeEqual(expected, Buffer.from(digestOf(token), 'hex'));
  if (!record || !matches) throw refused();
  await noteUse(record);
  return { token: record, scope: { orgUuid, isAdmin: true, caller: { uuid: record.id, provisioning: 'SCIM' } } };
}

async function noteUse(record: ScimTokenRecord): Promise<void> {
  const now = new Date();
  if (record.lastUsedAt && now.getTime() - Date.parse(record.lastUsedAt) < LAST_USED_EVERY_MS) return;
  // Conditional on the item existing, so a revocation meanwhile is not undone by a write that recreates it.
  await updateItem({
    Key: keys.scimToken(record.orgUuid, record.id),
    UpdateExpression: 'SET lastUsedAt = :now',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':now': now.toISOString() },
  });
}
