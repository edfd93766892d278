import { ACCOUNT_PAGE_CLIENT } from '../../domain/sessions/session.repository';
import { config } from '../../kernel/config';
import { realmIssuer } from '../auth/jwt';
import { isAllowedRedirect } from '../auth/redirect-uris';

/**
 * The clients of a realm's authorization flow: the console (`client_id` of the deployment's user pool
 * client, public, any redirect URI `redirect-uris.ts` allows), and the realm's own account page
 * (`account-console`, as Keycloak names it), which signs its people in through the same flow and comes
 * back to its own address only. The token endpoint knows the console only: the page exchanges its
 * codes itself.
 */
export const ACCOUNT_CLIENT = ACCOUNT_PAGE_CLIENT;

/** Where the flow comes back to the account page. */
export const accountSsoUri = (realm: string) => `${realmIssuer(realm)}/account/sso`;

/** Whether `clientId` is a client of the realm's flow. */
export const isRealmClient = (clientId: string): boolean => clientId === config().userPoolClientId || clientId === ACCOUNT_CLIENT;

/** Whether the flow may send a client's answer to `redirectUri` (compared exactly). */
export function isClientRedirect(clientId: string, realm: string, redirectUri: string): boolean {
  return clientId === ACCOUNT_CLIENT ? redirectUri === accountSsoUri(realm.toLowerCase()) : isAllowedRedirect(redirectUri, realm);
}
