import { cognitoIdentityProvider, type IdentityProvider } from '../../adapters/identity/identity-provider';
import { sesMailer, type Mailer } from '../../adapters/mail/mailer';

/** The ports user operations reach beyond the store; tests swap them to inject failures. */
export interface UserPorts {
  identityProvider: IdentityProvider;
  mailer: Mailer;
}

let defaultPorts: UserPorts | undefined;

/** The identity provider and mailer of this process (Cognito and SES, or their emulators). */
export const userPorts = (): UserPorts => (defaultPorts ??= { identityProvider: cognitoIdentityProvider, mailer: sesMailer() });
