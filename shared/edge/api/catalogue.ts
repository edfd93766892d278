import { agentsApi, supervisorsApi } from './agents.api';
import { authApi } from './auth.api';
import { bulkApi } from './bulk.api';
import { bundlesApi } from './bundles.api';
import { configurationsApi } from './configurations.api';
import { docsApi } from './docs.api';
import { eventsApi } from './events.api';
import { identityProvidersApi } from './identity-providers.api';
import type { Operation } from './operation';
import { scimApi } from './scim.api';
import { usersApi } from './users.api';
import { webhooksApi } from './webhooks.api';

/**
 * Every operation of the API, each declared once in its area's file: the one list the CDK routes, the
 * local gateway, each function's router and the OpenAPI document read (in this order: the document's).
 */
export const catalogue: readonly Operation[] = [
  ...Object.values(authApi),
  ...Object.values(docsApi),
  ...Object.values(usersApi),
  ...Object.values(bulkApi),
  ...Object.values(configurationsApi),
  ...Object.values(supervisorsApi),
  ...Object.values(agentsApi),
  ...Object.values(bundlesApi),
  ...Object.values(scimApi),
  ...Object.values(webhooksApi),
  ...Object.values(eventsApi),
  ...Object.values(identityProvidersApi),
];

export { agentsApi, authApi, bulkApi, bundlesApi, configurationsApi, docsApi, eventsApi, identityProvidersApi, scimApi, supervisorsApi, usersApi, webhooksApi };
