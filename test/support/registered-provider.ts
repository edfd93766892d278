import { unique, userArea } from './stack';
import { registrationOf, startTestProvider, type TestProvider } from './test-oidc-provider';
import { freshOrganization, type TestOrg } from './user-helpers';

/** A test provider registered for a fresh organization, for the e-mails of a domain of its own. */
export interface RegisteredProvider {
  provider: TestProvider;
  org: TestOrg;
  domain: string;
  alias: string;
  /** The provider's registration as the identity-providers API answered it. */
  registration: { redirectUri: string };
}

/** Starts a test provider and registers it (alias and domain `<prefix>-<unique>`); the caller closes it. */
export async function registeredProvider(prefix: string, displayName: string): Promise<RegisteredProvider> {
  const provider = await startTestProvider();
  const org = await freshOrganization();
  const domain = `${prefix}-${unique()}.example`;
  const alias = `${prefix}-${unique()}`;
  const created = await org.admin.api.post<{ redirectUri: string }>(userArea(org.orgUuid, '/identity-providers'), registrationOf(provider, { alias, displayName, domains: [domain] }));
  if (created.status !== 201) throw new Error(`The test provider was not registered: ${created.status} ${created.text}`);
  return { provider, org, domain, alias, registration: created.body };
}
