import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { sharedResponses } from '../../kernel/schemas/responses';
import { roles } from '../../domain/users/user.entities';

/** What the SCIM endpoints and the SCIM tokens' operations answer, made on first call (by the API description), never as a function loads. */
export const scimResponses = lazy(() => {
  const { dateTime } = sharedResponses();

  const accessSchema = z.strictObject({
    role: z.enum(roles),
    permissions: z.array(z.strictObject({ environmentUuid: z.uuid(), botUuid: z.optional(z.uuid()) })),
  });

  const scimTokenSchema = z
    .strictObject({
      id: z.uuid(),
      description: z.string(),
      defaultAccess: z.nullable(accessSchema).check(z.describe('The access of a user created without the access extension; null: such a creation is refused')),
      createdAt: dateTime,
      createdBy: z.string().check(z.describe('The ADMIN who issued it; the token works only while that user is an active ADMIN')),
      issuerActive: z.boolean().check(z.describe('Whether its issuer is still an active ADMIN; false: its requests are refused, issue a new token')),
      expiresAt: z.nullable(dateTime).check(z.describe('When it stops working; null: never')),
      lastUsedAt: z.nullable(dateTime).check(z.describe('Its last request, to the minute')),
    })
    .register(schemaRegistry, { id: 'ScimToken' });

  const issuedScimTokenSchema = z
    .extend(z.omit(scimTokenSchema, { issuerActive: true }), {
      token: z.string().check(z.describe('The secret: shown this once, kept only as its SHA-256 digest')),
    })
    .register(schemaRegistry, { id: 'IssuedScimToken' });

  const scimErrorSchema = z
    .object({
      schemas: z.array(z.literal('urn:ietf:params:scim:api:messages:2.0:Error')),
      status: z.string(),
      scimType: z
        .optional(z.string())
        .check(
          z.describe(
            'RFC 7644 §3.12: invalidFilter, tooMany, uniqueness, mutability, invalidSyntax, invalidPath, noTarget, invalidValue, invalidVers; absent on a 503',
          ),
        ),
      detail: z.string(),
    })
    .register(schemaRegistry, { id: 'ScimError' });

  const scimUserSchema = z
    .looseObject({
      schemas: z.array(z.string()),
      id: z.string(),
      externalId: z.optional(z.string()),
      userName: z.string(),
      name: z.optional(z.looseObject({ formatted: z.optional(z.string()), givenName: z.optional(z.string()), familyName: z.optional(z.string()) })),
      displayName: z.optional(z.string()),
      emails: z.optional(z.array(z.looseObject({ value: z.string(), type: z.optional(z.string()), primary: z.optional(z.boolean()) }))),
      active: z.optional(z.boolean()),
      meta: z.optional(z.looseObject({ resourceType: z.string(), created: z.string(), lastModified: z.string(), location: z.string(), version: z.string() })),
    })
    .check(z.describe('A SCIM User (RFC 7643 §4.1); role and grants in urn:ietf:params:scim:schemas:extension:agentplatform:2.0:User'))
    .register(schemaRegistry, { id: 'ScimUser' });

  const scimListSchema = z
    .looseObject({
      schemas: z.array(z.string()),
      totalResults: z.int().check(z.gte(0)),
      startIndex: z.int().check(z.gte(1)),
      itemsPerPage: z.int().check(z.gte(0)),
      Resources: z.array(z.looseObject({})),
    })
    .register(schemaRegistry, { id: 'ScimListResponse' });

  const scimDocumentSchema = z.looseObject({ schemas: z.array(z.string()) }).register(schemaRegistry, { id: 'ScimDocument' });

  return { scimTokenSchema, issuedScimTokenSchema, scimErrorSchema, scimUserSchema, scimListSchema, scimDocumentSchema };
});
type ScimSchemas = ReturnType<typeof scimResponses>;
export type ScimTokenSchema = ScimSchemas['scimTokenSchema'];
export type IssuedScimTokenSchema = ScimSchemas['issuedScimTokenSchema'];
export type ScimUserSchema = ScimSchemas['scimUserSchema'];
