import type ScimmyModule from 'scimmy';
import { roles } from '../../domain/users/user.entities';
import { requireLazily } from '../../kernel/lazy';
import { NotFoundError } from '../../kernel/errors';

/**
 * The SCIM schemas this service provider speaks, defined with scimmy (RFC 7643's core User schema and
 * enterprise User extension as scimmy ships them, and this API's access extension), and its discovery
 * documents.
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
/** The extension carrying a user's role and grants (environments and bots): the users area's access template. */
export const ACCESS_EXTENSION = 'urn:ietf:params:scim:schemas:extension:agentplatform:2.0:User';
/**
 * RFC 7643 §4.3's enterprise User extension (employeeNumber, costCenter, organization, division,
 * department, manager), which Microsoft Entra ID sends under its default attribute mappings: read and
 * checked, never kept (`scim-enterprise.ts`).
 */
export const ENTERPRISE_EXTENSION = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/** The User's extensions, in the order the discovery documents list them. */
export const EXTENSIONS = [ACCESS_EXTENSION, ENTERPRISE_EXTENSION] as const;
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

type Scimmy = typeof ScimmyModule;
type SchemaDefinition = InstanceType<Scimmy['Types']['SchemaDefinition']>;

interface Loaded {
  scimmy: Scimmy;
  accessExtension: SchemaDefinition;
  enterpriseExtension: SchemaDefinition;
}

let loaded: Loaded | undefined;
const scimmyPackage = /* @__PURE__ */ requireLazily<{ default: Scimmy }>('scimmy', () => require('scimmy')); // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose

/**
 * scimmy, with the access and enterprise extensions added to its User schema: loaded by the first request that needs
 * it (a resource to validate, a path to check, a PATCH to apply, the schemas to describe), not at cold
 * start. A package left out of the functions' bundles (its own file in the function that loads it:
 * docs/decisions/lighter-functions.md).
 */
function scimmy(): Loaded {
  if (loaded) return loaded;
  const library = scimmyPackage().default;
  const { Attribute, SchemaDefinition } = library.Types;
  const accessExtension = new SchemaDefinition('AgentPlatformAccess', ACCESS_EXTENSION, 'A user\u2019s role and the environments and bots it is granted', [
    new Attribute('string', 'role', {
      canonicalValues: [...roles],
      caseExact: true,
      description: 'ADMIN, SUPERVISOR, EDITOR or VIEWER. Absent on creation: the default access of the SCIM token.',
    }),
    new Attribute('complex', 'permissions', { multiValued: true, description: 'A SUPERVISOR\u2019s environments, or an EDITOR\u2019s or VIEWER\u2019s bots' }, [
      new Attribute('string', 'environmentUuid', { caseExact: true, required: true, description: 'An active environment of the organization' }),
      new Attribute('string', 'botUuid', { caseExact: true, description: 'An active bot of that environment (required for EDITOR and VIEWER)' }),
    ]),
  ]);
  // The core User schema with the extensions, once per process: scimmy keeps schema definitions globally.
  const extended = (id: string) => library.Schemas.User.definition.attributes.some((attribute) => (attribute as { id?: string }).id === id);
  if (!extended(ACCESS_EXTENSION)) library.Schemas.User.extend(accessExtension as unknown as ScimmyModule.Types.Schema, false);
  const enterpriseExtension = library.Schemas.EnterpriseUser.definition;
  if (!extended(ENTERPRISE_EXTENSION)) library.Schemas.User.extend(enterpriseExtension as unknown as ScimmyModule.Types.Schema, false);
  return (loaded = { scimmy: library, accessExtension, enterpriseExtension });
}

/** scimmy's namespaces this service provider uses, each loading scimmy on first use. */
export const SCIMMY = {
  get Types(): Scimmy['Types'] {
    return scimmy().scimmy.Types;
  },
  get Schemas(): Scimmy['Schemas'] {
    return scimmy().scimmy.Schemas;
  },
  get Messages(): Scimmy['Messages'] {
    return scimmy().scimmy.Messages;
  },
};

/** Each extension's definition by its URN, as scimmy holds it. */
export const extensionDefinitions = (): Record<(typeof EXTENSIONS)[number], SchemaDefinition> => ({
  [ACCESS_EXTENSION]: scimmy().accessExtension,
  [ENTERPRISE_EXTENSION]: scimmy().enterpriseExtension,
});

/** Whether scimmy raised `error`; false, without loading scimmy, while nothing has loaded it. */
export const isScimmyError = (error: unknown): error is InstanceType<Scimmy['Types']['Error']> =>
  loaded !== undefined && error instanceof loaded.scimmy.Types.Error;

/** RFC 7644 §3.4.2.4: the most resources one page answers, whatever `count` asks. */
export const MAX_PAGE_SIZE = 200;

/** RFC 7643 §5: what this service provider supports, and why groups are not among its resources. */
export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE_SIZE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM token',
        description: 'A bearer token an ADMIN issues with POST /{user_subpath}/org/{orgUUID}/scim-tokens',
        primary: true,
      },
    ],
    groups: {
      supported: false,
      description:
        'Access is a role plus grants of environments and bots per user; a directory group has no such meaning here. ' +
        `Give each user its role and grants in ${ACCESS_EXTENSION} (map them from group membership in the identity provider).`,
    },
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

/** RFC 7643 §6: the one resource type, User, with its extensions (neither required). */
export function resourceTypes(baseUrl: string) {
  return listOf(resourceTypeList(baseUrl));
}

/** RFC 7644 §4: one resource type by its id, or undefined. */
export const resourceTypeById = (baseUrl: string, id: string) => resourceTypeList(baseUrl).find((type) => type.id === id);

function resourceTypeList(baseUrl: string) {
  const user = {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A user of the organization',
    schema: USER_SCHEMA,
    schemaExtensions: EXTENSIONS.map((schema) => ({ schema, required: false })),
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
  };
  return [user];
}

/** RFC 7643 §7: the User schema (scimmy's core definition) and its extensions, as scimmy describes them. */
export function schemas(baseUrl: string) {
  return listOf(schemaList(baseUrl));
}

/** RFC 7644 §4: one schema by its URN, or undefined. */
export const schemaById = (baseUrl: string, id: string) => schemaList(baseUrl).find((schema) => schema.id === id);

function schemaList(baseUrl: string) {
  const core = SCIMMY.Schemas.User.definition;
  const extensions = extensionDefinitions();
  const described = [core, ...EXTENSIONS.map((id) => extensions[id])].map((definition) => definition.describe(`${baseUrl}/Schemas`)).map((schema) => ({
    ...schema,
    // The core definition's description includes each extension as an attribute: an extension has its own entry.
    attributes: schema.attributes.filter((attribute: { name?: string }) => !(EXTENSIONS as readonly (string | undefined)[]).includes(attribute.name)),
  }));
  return described as (typeof described[number] & { id: string })[];
}

export const listOf = <T>(resources: T[], startIndex = 1, totalResults = resources.length) => ({
  schemas: [LIST_RESPONSE],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});

/** A discovery document, or 404 naming where the list is. */
export function found<T>(document: T | undefined, kind: 'schema' | 'resource type'): T {
  if (document === undefined) throw new NotFoundError(`No ${kind} has this id: GET ${kind === 'schema' ? '/Schemas' : '/ResourceTypes'} lists them`);
  return document;
}
