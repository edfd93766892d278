import type * as z from 'zod';
import type { ScimTokenRecord } from './scim-tokens';
import type { scimTokenSchema } from './scim.responses';

/** A SCIM token as its operations answer it: never its digest. */
export function toScimTokenResponse(token: ScimTokenRecord): z.output<typeof scimTokenSchema> {
  return {
    id: token.id,
    description: token.description,
    defaultAccess: token.defaultAccess ?? null,
    createdAt: token.createdAt,
    createdBy: token.createdBy,
    lastUsedAt: token.lastUsedAt ?? null,
  };
}
