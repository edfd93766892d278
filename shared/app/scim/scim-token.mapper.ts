import type * as z from 'zod/mini';
import type { ListedScimToken, ScimTokenRecord } from './scim-tokens';
import type { IssuedScimTokenSchema, ScimTokenSchema } from './scim.responses';

/** A SCIM token as its creation answers it, with its secret: never its digest. */
export function toIssuedScimTokenResponse(token: ScimTokenRecord, secret: string): z.output<IssuedScimTokenSchema> {
  return {
    id: token.id,
    description: token.description,
    defaultAccess: token.defaultAccess ?? null,
    createdAt: token.createdAt,
    createdBy: token.createdBy,
    expiresAt: token.expiresAt ?? null,
    lastUsedAt: token.lastUsedAt ?? null,
    token: secret,
  };
}

/** A SCIM token as its listing answers it: whether its issuer still stands behind it, never its digest. */
export function toScimTokenResponse(token: ListedScimToken): z.output<ScimTokenSchema> {
  const { token: _secret, ...shown } = toIssuedScimTokenResponse(token, '');
  return { ...shown, issuerActive: token.issuerActive };
}
