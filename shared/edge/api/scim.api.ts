import * as z from 'zod/mini';
import { scimSchemas } from '../../app/scim/scim.schemas';
import { scimResponses } from '../../app/scim/scim.responses';
import { bot, environment } from './examples';
import { operationsUnder, type Outcome, type ResponseHeader } from './operation';

/**
 * The SCIM 2.0 service provider of an organization (RFC 7643, RFC 7644; docs/api/scim.md) and the SCIM
 * tokens an ADMIN issues for it. The SCIM endpoints take a SCIM token only, and answer
 * `application/scim+json` with SCIM's error schema; the tokens' operations take a user token.
 */
const tokens = operationsUnder('scim', 'user', '/org/{orgUUID}', { access: { org: 'admin' } });
const scim = operationsUnder('scim', 'user', '/org/{orgUUID}', { access: 'scim' });

const SCIM = 'application/scim+json';
/** SCIM's error schema for the statuses given: every SCIM endpoint answers its errors so. */
const scimErrors = (...only: number[]) => ({ scim: () => scimResponses().scimErrorSchema, only });
const writeErrors = scimErrors(400, 401, 404, 409, 412, 429, 500, 503);
const readErrors = scimErrors(400, 401, 404, 429, 500, 503);
const extension = 'urn:ietf:params:scim:schemas:extension:agentplatform:2.0:User';

/** A user as the SCIM endpoints answer it, with its ETag. */
const scimUser = <const S extends number>(status: S, headers: ResponseHeader[] = ['ETag']) =>
  ({ status, description: 'The user', json: () => scimResponses().scimUserSchema, mediaType: SCIM, headers }) satisfies Outcome;

type ScimSchemas = ReturnType<typeof scimSchemas>;
/** The path parameters of a discovery read: a path ending `{id}` names one document. */
type DiscoveryPath<P extends string> = () => P extends `${string}/{id}` ? ScimSchemas['scimDocumentPathSchema'] : ScimSchemas['scimOrgPathSchema'];

/**
 * A read of the service provider's own description (RFC 7643 §5 to §7), the same for every organization;
 * one named by `{id}` may not exist (404).
 */
function discovery<const I extends string, const P extends string, const J extends z.ZodMiniType>(id: I, path: P, summary: string, answer: { section: string; json: () => J }) {
  const named = path.endsWith('/{id}');
  return scim({
    id,
    method: 'GET',
    path,
    request: { path: (() => (named ? scimSchemas().scimDocumentPathSchema : scimSchemas().scimOrgPathSchema)) as DiscoveryPath<P> },
    summary,
    responses: [{ status: 200, description: `RFC 7643 ${answer.section}`, json: answer.json, mediaType: SCIM }],
    errors: named ? scimErrors(401, 404, 429, 500) : scimErrors(401, 429, 500),
  });
}

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
  createToken: tokens({
    id: 'scim.createToken',
    method: 'POST',
    path: '/scim-tokens',
    request: { path: () => scimSchemas().scimOrgPathSchema, body: () => scimSchemas().createScimTokenSchema },
    summary: 'Issue a SCIM token (ADMIN)',
    description:
      'The token is answered this once; only its SHA-256 digest is kept. It reaches this organization\u2019s SCIM endpoints and nothing else, ' +
      'until `expiresAt` (when given) and while its issuer is an active ADMIN. An organization holds at most 10 (422 `SCIM_TOKEN_LIMIT` beyond). Audited.',
    responses: [{ status: 201, description: 'The token, with its secret (never cached: Cache-Control no-store)', json: () => scimResponses().issuedScimTokenSchema, headers: ['Cache-Control', 'Pragma'] }],
    example: { description: 'Okta', defaultAccess: { role: 'VIEWER', permissions: [{ environmentUuid: environment, botUuid: bot }] } },
  }),
  listTokens: tokens({
    id: 'scim.listTokens',
    method: 'GET',
    path: '/scim-tokens',
    request: { path: () => scimSchemas().scimOrgPathSchema },
    summary: 'List the organization\u2019s SCIM tokens (ADMIN)',
    responses: [{ status: 200, description: 'The tokens, oldest first, without their secrets', json: () => z.array(scimResponses().scimTokenSchema) }],
  }),
  revokeToken: tokens({
    id: 'scim.revokeToken',
    method: 'DELETE',
    path: '/scim-tokens/{tokenId}',
    request: { path: () => scimSchemas().scimTokenPathSchema },
    summary: 'Revoke a SCIM token (ADMIN)',
    description: 'Its next request is refused.',
    responses: [{ status: 204, description: 'Revoked' }],
  }),
  serviceProviderConfig: discovery('scim.serviceProviderConfig', '/scim/v2/ServiceProviderConfig', 'SCIM: what this service provider supports', { section: '§5', json: () => scimResponses().scimDocumentSchema }),
  resourceTypes: discovery('scim.resourceTypes', '/scim/v2/ResourceTypes', 'SCIM: the resource types (User)', { section: '§6', json: () => scimResponses().scimListSchema }),
  schemas: discovery('scim.schemas', '/scim/v2/Schemas', 'SCIM: the User schema, the access extension and the enterprise extension', { section: '§7', json: () => scimResponses().scimListSchema }),
  resourceType: discovery('scim.resourceType', '/scim/v2/ResourceTypes/{id}', 'SCIM: one resource type (User)', { section: '§6', json: () => scimResponses().scimDocumentSchema }),
  schema: discovery('scim.schema', '/scim/v2/Schemas/{id}', 'SCIM: one schema, by its URN (the User schema, the access extension or the enterprise extension)', { section: '§7', json: () => scimResponses().scimDocumentSchema }),
  createUser: scim({
    id: 'scim.createUser',
    method: 'POST',
    path: '/scim/v2/Users',
    request: { path: () => scimSchemas().scimOrgPathSchema, body: () => scimSchemas().scimResourceBodySchema, bodyMediaTypes: [SCIM], headers: ['Language'] },
    summary: 'SCIM: create a user',
    description: 'As `POST …/users`: the same checks, audit event and welcome e-mail.',
    responses: [scimUser(201, ['ETag', 'Location'])],
    errors: writeErrors,
    example: ada,
  }),
  searchUsers: scim({
    id: 'scim.searchUsers',
    method: 'GET',
    path: '/scim/v2/Users',
    request: { path: () => scimSchemas().scimOrgPathSchema, query: () => scimSchemas().scimSearchQuerySchema },
    summary: 'SCIM: find users (filter, startIndex, count)',
    responses: [{ status: 200, description: 'A ListResponse, in creation order', json: () => scimResponses().scimListSchema, mediaType: SCIM }],
    errors: readErrors,
  }),
  getUser: scim({
    id: 'scim.getUser',
    method: 'GET',
    path: '/scim/v2/Users/{id}',
    request: { path: () => scimSchemas().scimUserPathSchema, query: () => scimSchemas().scimReadQuerySchema },
    summary: 'SCIM: read a user (a deactivated one too, with active false)',
    responses: [scimUser(200)],
    errors: readErrors,
  }),
  replaceUser: scim({
    id: 'scim.replaceUser',
    method: 'PUT',
    path: '/scim/v2/Users/{id}',
    request: { path: () => scimSchemas().scimUserPathSchema, body: () => scimSchemas().scimResourceBodySchema, bodyMediaTypes: [SCIM], headers: ['IfMatch', 'Language'] },
    summary: 'SCIM: replace a user',
    description: 'As `PUT …/users/{userId}`; `active` false deletes it (logically), true reactivates it.',
    responses: [scimUser(200)],
    errors: writeErrors,
    example: ada,
  }),
  patchUser: scim({
    id: 'scim.patchUser',
    method: 'PATCH',
    path: '/scim/v2/Users/{id}',
    request: { path: () => scimSchemas().scimUserPathSchema, body: () => scimSchemas().scimPatchBodySchema, bodyMediaTypes: [SCIM], headers: ['IfMatch', 'Language'] },
    summary: 'SCIM: modify a user (RFC 7644 §3.5.2)',
    description: 'All operations or none: an invalid one changes nothing.',
    responses: [scimUser(200)],
    errors: writeErrors,
    example: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: false }] },
  }),
  deleteUser: scim({
    id: 'scim.deleteUser',
    method: 'DELETE',
    path: '/scim/v2/Users/{id}',
    request: { path: () => scimSchemas().scimUserPathSchema, headers: ['IfMatch'] },
    summary: 'SCIM: delete a user (logically, as DELETE …/users/{userId})',
    responses: [{ status: 204, description: 'Deleted; it still reads, with active false' }],
    errors: scimErrors(401, 404, 409, 412, 429, 500),
  }),
};
