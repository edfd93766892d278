import * as z from 'zod';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { dateTime } from '../../kernel/schemas/responses';
import { roles } from '../../domain/users/user.entities';

/** What the SCIM endpoints and the SCIM tokens' operations answer. */

const accessSchema = z.strictObject({
  role: z.enum(roles),
  permissions: z.array(z.strictObject({ environmentUuid: z.uuid(), botUuid: z.uuid().optional() })),
});

export const scimTokenSchema = z
  .strictObject({
    id: z.uuid(),
    description: z.string(),
    defaultAccess: accessSchema.nullable().describe('The access of a user created without the access extension; null: such a creation is refused'),
    createdAt: dateTime,
    createdBy: z.string().describe('The ADMIN who issued it; the token works only while that user is an active ADMIN'),
    issuerActive: z.boolean().describe('Whether its issuer is still an active ADMIN; false: its requests are refused, issue a new token'),
    expiresAt: dateTime.nullable().describe('When it stops working; null: never'),
    lastUsedAt: dateTime.nullable().describe('Its last request, to the minute'),
  })
  .register(schemaRegistry, { id: 'ScimToken' });

export const issuedScimTokenSchema = scimTokenSchema
  .omit({ issuerActive: true })
  .extend({ token: z.string().describe('The secret: shown this once, kept only as its SHA-256 digest') })
  .register(schemaRegistry, { id: 'IssuedScimToken' });

export const scimErrorSchema = z
  .object({
    schemas: z.array(z.literal('urn:ietf:params:scim:api:messages:2.0:Error')),
    status: z.string(),
    scimType: z
      .string()
      .optional()
      .describe('RFC 7644 §3.12: invalidFilter, tooMany, uniqueness, mutability, invalidSyntax, invalidPath, noTarget, invalidValue, invalidVers; absent on a 503'),
    detail: z.string(),
  })
  .register(schemaRegistry, { id: 'ScimError' });

export const scimUserSchema = z
  .looseObject({
    schemas: z.array(z.string()),
    id: z.string(),
    externalId: z.string().optional(),
    userName: z.string(),
    name: z.looseObject({ formatted: z.string().optional(), givenName: z.string().optional(), familyName: z.string().optional() }).optional(),
    displayName: z.string().optional(),
    emails: z.array(z.looseObject({ value: z.string(), type: z.string().optional(), primary: z.boolean().optional() })).optional(),
    active: z.boolean().optional(),
    meta: z.looseObject({ resourceType: z.string(), created: z.string(), lastModified: z.string(), location: z.string(), version: z.string() }).optional(),
  })
  .describe('A SCIM User (RFC 7643 §4.1); role and grants in urn:ietf:params:scim:schemas:extension:agentplatform:2.0:User')
  .register(schemaRegistry, { id: 'ScimUser' });

export const scimListSchema = z
  .looseObject({
    schemas: z.array(z.string()),
    totalResults: z.int().min(0),
    startIndex: z.int().min(1),
    itemsPerPage: z.int().min(0),
    Resources: z.array(z.looseObject({})),
  })
  .register(schemaRegistry, { id: 'ScimListResponse' });

export const scimDocumentSchema = z.looseObject({ schemas: z.array(z.string()) }).register(schemaRegistry, { id: 'ScimDocument' });
