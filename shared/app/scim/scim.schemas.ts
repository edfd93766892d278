import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas } from '../../kernel/schemas/fields';
import { roles } from '../../domain/users/user.entities';

/** Request schemas of the SCIM endpoints and of the SCIM tokens' operations. */

const positive = (name: string) => z.coerce.number({ message: `${name} must be an integer` }).check(z.int({ message: `${name} must be an integer` }));

/** The SCIM endpoints' request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const scimSchemas = lazy(() => {
  const { uuidSchema } = fieldSchemas();

  const scimOrgPathSchema = z.object({ orgUUID: uuidSchema });
  const scimTokenPathSchema = z.object({ orgUUID: uuidSchema, tokenId: uuidSchema });
  /** A schema's id (its URN) or a resource type's id (`User`); any other is not found. */
  const scimDocumentPathSchema = z.object({ orgUUID: uuidSchema, id: z.string().check(z.minLength(1), z.maxLength(200)) });
  /** A user's id is its uuid; any other id is simply not found. */
  const scimUserPathSchema = z.object({ orgUUID: uuidSchema, id: z.string().check(z.minLength(1), z.maxLength(200)) });

  const permissionSchema = z.strictObject({ environmentUuid: uuidSchema, botUuid: z.optional(uuidSchema) });

  const createScimTokenSchema = z.strictObject({
    description: z
      .optional(z.string().check(z.trim(), z.maxLength(200, { message: 'Must be at most 200 characters' })))
      .check(z.describe('What the token is for (the directory it connects)')),
    defaultAccess: z
      .optional(
        z.strictObject({
          role: z.enum(roles, { message: `Must be one of ${roles.join(', ')}` }),
          permissions: z.optional(z.array(permissionSchema).check(z.maxLength(500))),
        }),
      )
      .check(z.describe('The role and grants of a user the directory creates without the access extension (as the users area\u2019s access template)')),
    expiresAt: z
      .optional(
        z.iso
          .datetime({ offset: true, message: 'Must be a date and time with its offset, such as 2027-06-30T00:00:00Z' })
          .check(z.refine((at) => Date.parse(at) > Date.now(), { message: 'Must be in the future' })),
      )
      .check(z.describe('When the token stops working (absent: never); its requests are then refused 401')),
  });

  /** RFC 7644 §3.4.2: filter, paging and attribute selection; `sortBy` is accepted and ignored (sorting is not supported). */
  const scimSearchQuerySchema = z.object({
    filter: z.optional(z.string().check(z.maxLength(2000, { message: 'Must be at most 2000 characters' }))),
    // RFC 7644 §3.4.2.4: a startIndex below 1 is read as 1, a negative count as 0.
    startIndex: z.pipe(
      z._default(positive('startIndex'), 1),
      z.transform((n) => Math.max(1, n)),
    ),
    count: z.pipe(
      z._default(positive('count'), 100),
      z.transform((n) => Math.min(Math.max(0, n), 200)),
    ),
    attributes: z.optional(z.string().check(z.maxLength(2000))),
    excludedAttributes: z.optional(z.string().check(z.maxLength(2000))),
    sortBy: z.optional(z.string().check(z.maxLength(200))),
    sortOrder: z.optional(z.enum(['ascending', 'descending'])),
  });

  /** A read's attribute selection. */
  const scimReadQuerySchema = z.pick(scimSearchQuerySchema, { attributes: true, excludedAttributes: true });

  /** A SCIM User (RFC 7643 §4.1) or PatchOp message (RFC 7644 §3.5.2): validated by scimmy's schema, after the chain. */
  const scimResourceBodySchema = z
    .record(z.string(), z.unknown())
    .check(z.describe('A SCIM User, with the access extension where it sets role and grants'));
  const scimPatchBodySchema = z
    .object({ schemas: z.array(z.string()), Operations: z.array(z.object({ op: z.string(), path: z.optional(z.string()), value: z.optional(z.unknown()) })) })
    .check(z.describe('A PatchOp message (urn:ietf:params:scim:api:messages:2.0:PatchOp)'));

  return { scimOrgPathSchema, scimTokenPathSchema, scimDocumentPathSchema, scimUserPathSchema, createScimTokenSchema, scimSearchQuerySchema, scimReadQuerySchema, scimResourceBodySchema, scimPatchBodySchema };
});
