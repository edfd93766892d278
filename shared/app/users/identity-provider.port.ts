import { cognitoIdentityProvider, pacedCognitoIdentityProvider } from '../../adapters/identity/identity-provider';
import type { Pace } from '../../kernel/retry';

/** Port: where users' credentials live, as the user operations use it. The username is always the user's uuid. */
export interface IdentityProvider {
  /** Registers a user with a password (`temporary`: one the user must replace); registering an existing username again resets it. */
  createUser(input: { username: string; email: string; password: string; temporary?: boolean }): Promise<void>;
  /** Changes the sign-in e-mail (kept verified: an ADMIN vouches for it). */
  updateEmail(username: string, email: string): Promise<void>;
  /** Sets a password: permanent unless `temporary`. */
  setPassword(username: string, password: string, options?: { temporary?: boolean }): Promise<void>;
  /** Blocks sign-in (logical deletion); idempotent. */
  disable(username: string): Promise<void>;
  /** Allows sign-in again (reactivation); idempotent. */
  enable(username: string): Promise<void>;
}

/** The port user operations reach beyond the store (e-mails go through the queue); tests swap it to inject failures. */
export interface UserPorts {
  identityProvider: IdentityProvider;
}

let defaultPorts: UserPorts | undefined;

/** The identity provider of this process: Cognito (or its emulator), through its adapter. */
export const userPorts = (): UserPorts => (defaultPorts ??= { identityProvider: cognitoIdentityProvider });

/**
 * The identity provider for a caller that paces its calls (the bulk worker): a call refused for
 * Cognito's rate is tried again on the caller's next turn under `pace`, so it delays, never fails, a
 * row.
 */
export const pacedIdentityProvider = (pace: Pace): IdentityProvider => pacedCognitoIdentityProvider(pace);
