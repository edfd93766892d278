import type * as z from 'zod/mini';
import { scimApi } from '../../shared/edge/api/scim.api';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { scimNoContent, scimOperation, scimReply } from '../../shared/edge/http/scim-route';
import { ok } from '../../shared/edge/http/types';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { languageOf } from '../../shared/edge/http/language-header';
import { found, listOf, resourceTypeById, resourceTypes, schemaById, schemas, serviceProviderConfig } from '../../shared/app/scim/scim-schema';
import { issueScimToken, listScimTokens, revokeScimToken } from '../../shared/app/scim/scim-tokens';
import { toIssuedScimTokenResponse, toScimTokenResponse } from '../../shared/app/scim/scim-token.mapper';
import {
  createScimUser,
  deleteScimUser,
  patchScimUser,
  readScimUser,
  renderScimUsers,
  replaceScimUser,
  searchScimUsers,
  versionOf,
  type ScimContext,
  type UserRecord,
} from '../../shared/app/scim/scim-users.service';
import type { AttributeSelection } from '../../shared/app/scim/scim-projection';
import type { ScimUserSchema } from '../../shared/app/scim/scim.responses';
import type { ScimRouteInput } from '../../shared/edge/http/scim-route';
import type { RouteSchemas } from '../../shared/edge/http/validation';

/** The SCIM 2.0 service provider of an organization (docs/api/scim.md), and the SCIM tokens its ADMINs issue. */


/** The request's SCIM context: the token's scope, the SCIM root, and the e-mails' language (`language` header) and sign-in address. */
const contextOf = ({ scim, baseUrl, headers }: ScimRouteInput<RouteSchemas>): ScimContext => ({
  caller: scim,
  baseUrl,
  mail: { language: languageOf(headers) },
});

/**
 * The users as SCIM answers them. The projection is the schema's User; `attributes` may leave out
 * what the schema lists (the client asked for what it reads), which the type cannot see.
 */
const resourcesOf = (users: UserRecord[], baseUrl: string, query?: AttributeSelection) => renderScimUsers(users, baseUrl, query) as z.input<ScimUserSchema>[];

/** One user as SCIM answers it: its resource, with its version as the ETag. */
const userReply = <const S extends 200 | 201>(status: S, user: UserRecord, baseUrl: string, query?: AttributeSelection) => {
  const [resource] = resourcesOf([user], baseUrl, query);
  const location: Record<string, string> = status === 201 ? { location: `${baseUrl}/Users/${user.uuid}` } : {};
  return scimReply(status, resource!, { etag: versionOf(user), ...location });
};

export const handlers = routes(
  tokenOperation(scimApi.createToken, {
    handle: async ({ body, scope }) => {
      const { record, token } = await issueScimToken(scope, body);
      // The secret is shown this once: no cache keeps it.
      return { status: 201, body: toIssuedScimTokenResponse(record, token), headers: { 'cache-control': 'no-store', pragma: 'no-cache' } };
    },
  }),
  tokenOperation(scimApi.listTokens, {
    handle: async ({ scope }) => ok((await listScimTokens(scope)).map(toScimTokenResponse)),
  }),
  tokenOperation(scimApi.revokeToken, {
    handle: async ({ path, scope }) => {
      await revokeScimToken(scope, path.tokenId);
      return { status: 204 };
    },
  }),
  scimOperation(scimApi.serviceProviderConfig, { handle: async ({ baseUrl }) => scimReply(200, serviceProviderConfig(baseUrl)) }),
  scimOperation(scimApi.resourceTypes, { handle: async ({ baseUrl }) => scimReply(200, resourceTypes(baseUrl)) }),
  scimOperation(scimApi.schemas, { handle: async ({ baseUrl }) => scimReply(200, schemas(baseUrl)) }),
  scimOperation(scimApi.resourceType, { handle: async ({ baseUrl, path }) => scimReply(200, found(resourceTypeById(baseUrl, path.id), 'resource type')) }),
  scimOperation(scimApi.schema, { handle: async ({ baseUrl, path }) => scimReply(200, found(schemaById(baseUrl, path.id), 'schema')) }),
  scimOperation(scimApi.createUser, {
    handle: async (input) => userReply(201, await createScimUser(contextOf(input), input.body), input.baseUrl),
  }),
  scimOperation(scimApi.searchUsers, {
    handle: async (input) => {
      const { query, baseUrl } = input;
      const { users, total } = await searchScimUsers(contextOf(input), query);
      return scimReply(200, listOf(resourcesOf(users, baseUrl, query), query.startIndex, total));
    },
  }),
  scimOperation(scimApi.getUser, {
    handle: async (input) => userReply(200, await readScimUser(contextOf(input), input.path.id), input.baseUrl, input.query),
  }),
  scimOperation(scimApi.replaceUser, {
    handle: async (input) => userReply(200, await replaceScimUser(contextOf(input), input.path.id, input.body, input.headers['if-match']), input.baseUrl),
  }),
  scimOperation(scimApi.patchUser, {
    handle: async (input) => userReply(200, await patchScimUser(contextOf(input), input.path.id, input.body, input.headers['if-match']), input.baseUrl),
  }),
  scimOperation(scimApi.deleteUser, {
    handle: async (input) => {
      await deleteScimUser(contextOf(input), input.path.id, input.headers['if-match']);
      return scimNoContent();
    },
  }),
);

export const handler = createFunction('scim', handlers);
