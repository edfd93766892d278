import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { auditWrites } from '../../domain/audit/audit-event.repository';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../kernel/errors';
import {
  deleteScimToken,
  MAX_SCIM_TOKENS,
  noteScimTokenUse,
  putScimToken,
  readScimToken,
  scimTokensOf as tokensOf,
  type ScimTokenRecord,
} from '../../domain/scim/scim-token.repository';
import { accessOrThrow, checkGrants } from '../../domain/users/user-changes';
import type { AccessInput } from '../../domain/users/access-template';
import type { OrgScope, Provisioner } from '../../domain/users/org-scope';
import type { UserRecord } from '../../domain/users/user.entities';
import { getUser, getUsers } from '../../domain/users/user.repository';

// The token's record and the cap, for the SCIM routes and the token mapper.
export { MAX_SCIM_TOKENS, type ScimTokenRecord };

/**
 * SCIM tokens: the credentials an organization's identity provider (Okta, Entra ID) provisions users
 * with. An ADMIN issues one per connected directory; the token is shown once and only its SHA-256
 * digest is kept. A token reaches its own organization's SCIM endpoints and nothing else (the user
 * routes verify user access tokens only, and this module reads the token under the path's
 * organization). A token acts for the ADMIN who issued it: it stops working when it expires, and when
 * its issuer is deleted or is no longer an ADMIN (as Okta's API tokens do), so no credential outlives
 * the authority that granted it. Issuing and revoking are audited, and so published as change events.
 */

/** A token as its listing shows it: whether its issuer still stands behind it. */
export interface ListedScimToken extends ScimTokenRecord {
  issuerActive: boolean;
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

/** Whether a user is an active ADMIN: the only issuer a token may act for. */
const activeAdmin = (user: Pick<UserRecord, 'status' | 'role'> | undefined) => user?.status === 'ACTIVE' && user.role === 'ADMIN';

const tooMany = () =>
  new ValidationError({ details: [{ fieldName: '(body)', message: `The organization has ${MAX_SCIM_TOKENS} SCIM tokens that have not expired, the most it may have: revoke one it no longer uses first`, errorCode: 'SCIM_TOKEN_LIMIT' }], code: 'SCIM_TOKEN_LIMIT' });

/** Issues a token for the scope's organization; answers it this once, with its record. 422 past `MAX_SCIM_TOKENS`. */
export async function issueScimToken(
  scope: OrgScope,
  input: { description?: string; defaultAccess?: AccessInput; expiresAt?: string },
): Promise<{ record: ScimTokenRecord; token: string }> {
  const defaultAccess = input.defaultAccess ? accessOrThrow(input.defaultAccess) : undefined;
  if (defaultAccess) await checkGrants(scope.orgUuid, defaultAccess);
  let tokens = await tokensOf(scope.orgUuid);
  if (tokens.length >= MAX_SCIM_TOKENS) {
    // Expired tokens work no more: at the cap they make room, each revoked (and audited) by this ADMIN.
    const expired = tokens.filter((token) => token.expiresAt && Date.parse(token.expiresAt) <= Date.now());
    for (const token of expired) await revokeScimToken(scope, token.id).catch((error: unknown) => (error instanceof NotFoundError ? undefined : Promise.reject(error)));
    tokens = expired.length > 0 ? await tokensOf(scope.orgUuid) : tokens;
  }
  const listed = tokens.length;
  if (listed >= MAX_SCIM_TOKENS) throw tooMany();
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
    ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt).toISOString() } : {}),
  };
  const { digest: _digest, orgUuid: _org, ...shown } = record;
  const audit = auditWrites({ orgUuid: scope.orgUuid, action: 'SCIM_TOKEN_ISSUED', resource: { type: 'SCIM_TOKEN', uuid: id }, changes: [{ op: 'add', path: '', value: shown }], at: record.createdAt });
  if (!(await putScimToken(record, listed, audit))) throw tooMany();
  return { record, token };
}

/** The organization's tokens, oldest first (digests are never answered), each with whether its issuer is still an active ADMIN. */
export async function listScimTokens(scope: OrgScope): Promise<ListedScimToken[]> {
  const tokens = (await tokensOf(scope.orgUuid)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const issuers = new Map((await getUsers(scope.orgUuid, [...new Set(tokens.map((token) => token.createdBy))])).map((user) => [user.uuid, user]));
  return tokens.map((token) => ({ ...token, issuerActive: activeAdmin(issuers.get(token.createdBy)) }));
}

/** Revokes a token: the next request with it is refused (every request reads the token's item). */
export async function revokeScimToken(scope: OrgScope, tokenId: string): Promise<void> {
  const listed = (await tokensOf(scope.orgUuid)).length;
  const audit = auditWrites({ orgUuid: scope.orgUuid, action: 'SCIM_TOKEN_REVOKED', resource: { type: 'SCIM_TOKEN', uuid: tokenId }, changes: [{ op: 'remove', path: '' }] });
  if (!(await deleteScimToken(scope.orgUuid, tokenId, listed, audit))) throw new NotFoundError('The organization has no SCIM token with this id: GET …/scim-tokens lists them');
}

const refused = (why = 'A valid SCIM token of this organization is required: send Authorization: Bearer <token issued by POST …/scim-tokens>') =>
  new UnauthenticatedError({ message: why, tokenRefused: true });

/**
 * The SCIM caller of a request for `orgUuid`'s SCIM endpoints: a `Bearer` token of the SCIM form whose
 * item exists under that organization and whose digest matches, not expired, issued by a user who is
 * still an active ADMIN (the token's item, then its issuer's). Anything else (no token,
 * a user's access token, another organization's or a revoked SCIM token) is refused alike.
 */
export async function authenticateScim(authorization: string | undefined, orgUuid: string | undefined): Promise<ScimCaller> {
  const token = authorization?.trim().match(/^Bearer\s+(\S+)$/i)?.[1];
  const parts = token ? TOKEN.exec(token) : null;
  if (!token || !parts || !orgUuid) throw refused();
  const record = await readScimToken(orgUuid, dashed(parts[1]!));
  const expected = record ? Buffer.from(record.digest, 'hex') : Buffer.alloc(32);
  const matches = timingSafeEqual(expected, Buffer.from(digestOf(token), 'hex'));
  if (!record || !matches) throw refused();
  if (record.expiresAt && Date.parse(record.expiresAt) <= Date.now()) throw refused(`The SCIM token expired at ${record.expiresAt}: an ADMIN issues a new one with POST …/scim-tokens`);
  if (!activeAdmin(await getUser(orgUuid, record.createdBy))) {
    throw refused('The ADMIN who issued this SCIM token is no longer an active ADMIN of the organization: an active ADMIN issues a new one with POST …/scim-tokens');
  }
  await noteUse(record);
  return { token: record, scope: { orgUuid, isAdmin: true, caller: { uuid: record.id, provisioning: 'SCIM' } } };
}

async function noteUse(record: ScimTokenRecord): Promise<void> {
  const now = new Date();
  if (record.lastUsedAt && now.getTime() - Date.parse(record.lastUsedAt) < LAST_USED_EVERY_MS) return;
  await noteScimTokenUse(record, now);
}
