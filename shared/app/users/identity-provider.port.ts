import { cognitoIdentityProvider, type IdentityProvider } from '../../adapters/identity/identity-provider';

/** The port user operations reach beyond the store (e-mails go through the queue); tests swap it to inject failures. */
export interface UserPorts {
  identityProvider: IdentityProvider;
}

let defaultPorts: UserPorts | undefined;

/** The identity provider of this process (Cognito, or its emulator). */
export const userPorts = (): UserPorts => (defaultPorts ??= { identityProvider: cognitoIdentityProvider });
