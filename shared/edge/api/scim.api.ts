import * as z from 'zod';
import {
  createScimTokenSchema,
  scimDocumentPathSchema,
  scimOrgPathSchema,
  scimPatchBodySchema,
  scimReadQuerySchema,
  scimResourceBodySchema,
  scimSearchQuerySchema,
  scimTokenPathSchema,
  scimUserPathSchema,
} from '../../app/scim/scim.schemas';
import { issuedScimTokenSchema, scimDocumentSchema, scimErrorSchema, scimListSchema, scimTokenSchema, scimUserSchema } from '../../app/scim/scim.responses';
import { bot, environment } from './examples';
import { operationsUnder } from './operation';

/**
 * The SCIM 2.0 service provider of an organization (RFC 7643, RFC 7644; docs/api/scim.md) and the SCIM
 * tokens an ADMIN issues for it. The SCIM endpoints take a SCIM token only, and answer
 * `application/scim+json` with SCIM's error schema; the tokens' operations take a user token.
 */
const scim = operationsUnder('scim', 'user', '/org/{orgUUID}');

const SCIM = 'application/scim+json';
const scimErrors = { scim: scimErrorSchema, only: [400, 401, 404, 409, 412, 429, 500, 503] };
const readErrors = { scim: scimErrorSchema, only: [400, 401, 404, 429, 500, 503] };
const extension = 'urn:ietf:params:scim:schemas:extension:agentplatform:2.0:User';

const ada = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', extension],
  userName: 'ada@example.com',
  externalId: '00u1ada',
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
  active: true,
  [extension]: { role: 'VIEWER', permissions: [{ environmentUuid: environment, botUuid: bot }] },
};

export const scimApi = {
  createToken: scim({
    id: 'scim.createToken',
    method: 'POST',
    path: '/scim-tokens',
    access: { org: 'admin' },
    request: { path: scimOrgPathSchema, body: createScimTokenSchema },
    summary: 'Issue a SCIM token (ADMIN)',
    description:
      'The token is answered this once; only its SHA-256 digest is kept. It reaches this organization\u2019s SCIM endpoints and nothing else, ' +
      'until `expiresAt` (when given) and while its issuer is an active ADMIN. An organization holds at most 10 (422 `SCIM_TOKEN_LIMIT` beyond). Audited.',
    responses: [{ status: 201, description: 'The token, with its secret (never cached: Cache-Control no-store)', json: issuedScimTokenSchema, headers: ['Cache-Control', 'Pragma'] }],
    example: { description: 'Okta', defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: environment, botUuid: bot }] } },
  }),
  listTokens: scim({
    id: 'scim.listTokens',
    method: 'GET',
    path: '/scim-tokens',
    access: { org: 'admin' },
    request: { path: scimOrgPathSchema },
    summary: 'List the organization\u2019s SCIM tokens (ADMIN)',
    responses: [{ status: 200, description: 'The tokens, oldest first, without their secrets', json: z.array(scimTokenSchema) }],
  }),
  revokeToken: scim({
    id: 'scim.revokeToken',
    method: 'DELETE',
    path: '/scim-tokens/{tokenId}',
    access: { org: 'admin' },
    request: { path: scimTokenPathSchema },
    summary: 'Revoke a SCIM token (ADMIN)',
    description: 'Its next request is refused.',
    responses: [{ status: 204, description: 'Revoked' }],
  }),
  serviceProviderConfig: scim({
    id: 'scim.serviceProviderConfig',
    method: 'GET',
    path: '/scim/v2/ServiceProviderConfig',
    access: 'scim',
    request: { path: scimOrgPathSchema },
    summary: 'SCIM: what this service provider supports',
    responses: [{ status: 200, description: 'RFC 7643 §5', json: scimDocumentSchema, mediaType: SCIM }],
    errors: { scim: scimErrorSchema, only: [401, 429, 500] },
  }),
  resourceTypes: scim({
    id: 'scim.resourceTypes',
    method: 'GET',
    path: '/scim/v2/ResourceTypes',
    access: 'scim',
    request: { path: scimOrgPathSchema },
    summary: 'SCIM: the resource types (User)',
    responses: [{ status: 200, description: 'RFC 7643 §6', json: scimListSchema, mediaType: SCIM }],
    errors: { scim: scimErrorSchema, only: [401, 429, 500] },
  }),
  schemas: scim({
    id: 'scim.schemas',
    method: 'GET',
    path: '/scim/v2/Schemas',
    access: 'scim',
    request: { path: scimOrgPathSchema },
    summary: 'SCIM: the User schema and the access extension',
    responses: [{ status: 200, description: 'RFC 7643 §7', json: scimListSchema, mediaType: SCIM }],
    errors: { scim: scimErrorSchema, only: [401, 429, 500] },
  }),
  resourceType: scim({
    id: 'scim.resourceType',
    method: 'GET',
    path: '/scim/v2/ResourceTypes/{id}',
    access: 'scim',
    request: { path: scimDocumentPathSchema },
    summary: 'SCIM: one resource type (User)',
    responses: [{ status: 200, description: 'RFC 7643 §6', json: scimDocumentSchema, mediaType: SCIM }],
    errors: { scim: scimErrorSchema, only: [401, 404, 429, 500] },
  }),
  schema: scim({
    id: 'scim.schema',
    method: 'GET',
    path: '/scim/v2/Schemas/{id}',
    access: 'scim',
    request: { path: scimDocumentPathSchema },
    summary: 'SCIM: one schema, by its URN (the User schema or the access extension)',
    responses: [{ status: 200, description: 'RFC 7643 §7', json: scimDocumentSchema, mediaType: SCIM }],
    errors: { scim: scimErrorSchema, only: [401, 404, 429, 500] },
  }),
  createUser: scim({
    id: 'scim.createUser',
    method: 'POST',
    path: '/scim/v2/Users',
    access: 'scim',
    request: { path: scimOrgPathSchema, body: scimResourceBodySchema, bodyMediaTypes: [SCIM], headers: ['Language'] },
    summary: 'SCIM: create a user',
    description: 'As `POST …/users`: the same checks, audit event and welcome e-mail.',
    responses: [{ status: 201, description: 'The user', json: scimUserSchema, mediaType: SCIM, headers: ['ETag', 'Location'] }],
    errors: scimErrors,
    example: ada,
  }),
  searchUsers: scim({
    id: 'scim.searchUsers',
    method: 'GET',
    path: '/scim/v2/Users',
    access: 'scim',
    request: { path: scimOrgPathSchema, query: scimSearchQuerySchema },
    summary: 'SCIM: find users (filter, startIndex, count)',
    responses: [{ status: 200, description: 'A ListResponse, in creation order', json: scimListSchema, mediaType: SCIM }],
    errors: readErrors,
  }),
  getUser: scim({
    id: 'scim.getUser',
    method: 'GET',
    path: '/scim/v2/Users/{id}',
    access: 'scim',
    request: { path: scimUserPathSchema, query: scimReadQuerySchema },
    summary: 'SCIM: read a user (a deactivated one too, with active false)',
    responses: [{ status: 200, description: 'The user', json: scimUserSchema, mediaType: SCIM, headers: ['ETag'] }],
    errors: readErrors,
  }),
  replaceUser: scim({
    id: 'scim.replaceUser',
    method: 'PUT',
    path: '/scim/v2/Users/{id}',
    access: 'scim',
    request: { path: scimUserPathSchema, body: scimResourceBodySchema, bodyMediaTypes: [SCIM], headers: ['IfMatch', 'Language'] },
    summary: 'SCIM: replace a user',
    description: 'As `PUT …/users/{userId}`; `active` false deletes it (logically), true reactivates it.',
    responses: [{ status: 200, description: 'The user', json: scimUserSchema, mediaType: SCIM, headers: ['ETag'] }],
    errors: scimErrors,
    example: ada,
  }),
  patchUser: scim({
    id: 'scim.patchUser',
    method: 'PATCH',
    path: '/scim/v2/Users/{id}',
    access: 'scim',
    request: { path: scimUserPathSchema, body: scimPatchBodySchema, bodyMediaTypes: [SCIM], headers: ['IfMatch', 'Language'] },
    summary: 'SCIM: modify a user (RFC 7644 §3.5.2)',
    description: 'All operations or none: an invalid one changes nothing.',
    responses: [{ status: 200, description: 'The user', json: scimUserSchema, mediaType: SCIM, headers: ['ETag'] }],
    errors: scimErrors,
    example: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] },
  }),
  deleteUser: scim({
    id: 'scim.deleteUser',
    method: 'DELETE',
    path: '/scim/v2/Users/{id}',
    access: 'scim',
    request: { path: scimUserPathSchema, headers: ['IfMatch'] },
    summary: 'SCIM: delete a user (logically, as DELETE …/users/{userId})',
    responses: [{ status: 204, description: 'Deleted; it still reads, with active false' }],
    errors: { scim: scimErrorSchema, only: [401, 404, 409, 412, 429, 500] },
  }),
};
