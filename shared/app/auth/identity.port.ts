import { cognitoIdentityProvider } from '../../adapters/identity/identity-provider';
import { passwordProblem as policyProblem } from '../../adapters/identity/password-policy';

/**
 * Port: what the realm's sign-in, token and account pages ask of the identity provider that keeps the
 * passwords (Amazon Cognito; cognito-local on the local stack), bound here to its adapter. The
 * username is always the user's uuid.
 */
export interface IdentityProvider {
  /**
   * What a password check found: the user's password; its temporary password (good only for choosing a
   * new one); a temporary password past its validity; the provider's own lockout; or any other failure.
   */
  verifyPassword(username: string, password: string): Promise<'valid' | 'temporary' | 'expired' | 'throttled' | 'invalid'>;
  /** Which password the user has, without trying one: its own, a temporary one, or none that signs in. */
  passwordStanding(username: string): Promise<'permanent' | 'temporary' | 'none'>;
  /** Sets a permanent password; throws an error named `InvalidPasswordException` when the pool's policy refuses it. */
  setPassword(username: string, password: string): Promise<void>;
}

/** The identity provider of this process. */
export const identityProvider: IdentityProvider = cognitoIdentityProvider;

/** What is wrong with a new password under the password policy (docs/api/bulk.md#bulk-create, rule 3), or undefined. */
export const passwordProblem = (password: string): string | undefined => policyProblem(password);
