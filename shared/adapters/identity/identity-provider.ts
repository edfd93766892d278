import {
  AdminCreateUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  AdminUpdateUserAttributesCommand,
  UsernameExistsException,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { cognitoClient, pacedCognitoClient } from '../clients/cognito';
import type { Pace } from '../../kernel/retry';
import { config } from '../../kernel/config';
import { logger } from '../../kernel/logger';

/**
 * What a password check found: the user's password; the user's temporary password (one we generated
 * and e-mailed, good only for choosing a new one); a temporary password past its validity (only an
 * ADMIN can help: not the user's mistake); the identity provider's own lockout (Cognito's, after
 * repeated failures: says nothing of this password); or any other credential failure.
 */
export type PasswordCheck = 'valid' | 'temporary' | 'expired' | 'throttled' | 'invalid';

/**
 * Which password a user has: one the user chose or an ADMIN set (`permanent`), a temporary one still to
 * be changed (`temporary`), or none that signs in (no account, or one that must be reset).
 */
export type PasswordStanding = 'permanent' | 'temporary' | 'none';

export interface PasswordOptions {
  /** A generated password: it lets the user do one thing, set a password of its own. */
  temporary?: boolean;
}

/** Port: where credentials live. The username is always our user uuid. */
export interface IdentityProvider {
  /** Registers a user with a password; registering an existing username again resets it. */
  createUser(input: { username: string; email: string; password: string } & PasswordOptions): Promise<void>;
  verifyPassword(username: string, password: string): Promise<PasswordCheck>;
  /** Which password the user has, without trying one. */
  passwordStanding(username: string): Promise<PasswordStanding>;
  /** Changes the sign-in e-mail (kept verified: an ADMIN vouches for it). */
  updateEmail(username: string, email: string): Promise<void>;
  /** Sets a password: permanent unless `temporary`. */
  setPassword(username: string, password: string, options?: PasswordOptions): Promise<void>;
  /** Blocks sign-in (logical deletion); idempotent. */
  disable(username: string): Promise<void>;
  /** Allows sign-in again (reactivation); idempotent. */
  enable(username: string): Promise<void>;
}

const credentialFailures = new Set([
  // A password Cognito cannot even take (empty, over 256 characters): no one's password.
  'InvalidParameterException',
  'NotAuthorizedException',
  'UserNotFoundException',
  'InvalidPasswordException',
  'PasswordResetRequiredException',
  'UserNotConfirmedException',
]);

/** The adapter over a Cognito client. */
function identityProviderOver(client: () => CognitoIdentityProviderClient): IdentityProvider {
  const provider: IdentityProvider = {
    async createUser({ username, email, password, temporary }) {
      const { userPoolId } = config();
      let created = false;
      try {
        await client().send(
          new AdminCreateUserCommand({
            UserPoolId: userPoolId,
            Username: username,
            MessageAction: 'SUPPRESS',
            UserAttributes: [
              { Name: 'email', Value: email },
              { Name: 'email_verified', Value: 'true' },
            ],
            // A temporary password comes with the account: one call under Cognito's UserCreation quota
            // (50/s) rather than a second one under UserAccountRecovery (30/s).
            ...(temporary ? { TemporaryPassword: password } : {}),
          }),
        );
        created = true;
      } catch (error) {
        // A retry after a crash finds the account made by the earlier attempt: adopt it.
        if (!(error instanceof UsernameExistsException)) throw error;
      }
      // A permanent password, or an adopted account's, is set apart.
      if (!created || !temporary) await provider.setPassword(username, password, { temporary });
    },

    async updateEmail(username, email) {
      await client().send(
        new AdminUpdateUserAttributesCommand({
          UserPoolId: config().userPoolId,
          Username: username,
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
          ],
        }),
      );
    },

    async setPassword(username, password, options = {}) {
      // A temporary password puts the Cognito user in FORCE_CHANGE_PASSWORD: signing in with it answers
      // the NEW_PASSWORD_REQUIRED challenge instead of tokens, and it expires after the pool's
      // temporary-password validity.
      await client().send(
        new AdminSetUserPasswordCommand({
          UserPoolId: config().userPoolId,
          Username: username,
          Password: password,
          Permanent: !options.temporary,
        }),
      );
    },

    async disable(username) {
      await client().send(new AdminDisableUserCommand({ UserPoolId: config().userPoolId, Username: username }));
    },

    async enable(username) {
      await client().send(new AdminEnableUserCommand({ UserPoolId: config().userPoolId, Username: username }));
    },

    async passwordStanding(username) {
      try {
        const { UserStatus, Enabled } = await client().send(new AdminGetUserCommand({ UserPoolId: config().userPoolId, Username: username }));
        if (Enabled === false) return 'none';
        // CONFIRMED: a password set permanent (chosen, or set by an ADMIN); FORCE_CHANGE_PASSWORD: a temporary one.
        return UserStatus === 'CONFIRMED' ? 'permanent' : UserStatus === 'FORCE_CHANGE_PASSWORD' ? 'temporary' : 'none';
      } catch (error) {
        if (error instanceof Error && error.name === 'UserNotFoundException') return 'none';
        throw error;
      }
    },

    async verifyPassword(username, password) {
      const { userPoolId, userPoolClientId } = config();
      try {
        const result = await client().send(
          new AdminInitiateAuthCommand({
            UserPoolId: userPoolId,
            ClientId: userPoolClientId,
            AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
            AuthParameters: { USERNAME: username, PASSWORD: password },
          }),
        );
        // Cognito checks the password before it asks for a new one: the challenge means it was right.
        if (result.ChallengeName === 'NEW_PASSWORD_REQUIRED') return 'temporary';
        if (result.ChallengeName) {
          logger.warn('identity provider asked for a challenge; refusing the password grant', {
            challenge: result.ChallengeName,
          });
          return 'invalid';
        }
        return result.AuthenticationResult ? 'valid' : 'invalid';
      } catch (error) {
        if (error instanceof Error && error.name === 'NotAuthorizedException') {
          // Cognito tells these apart only by message (its API reference documents both).
          if (/temporary password has expired/i.test(error.message)) return 'expired';
          if (/password attempts exceeded/i.test(error.message)) return 'throttled';
        }
        if (error instanceof Error && credentialFailures.has(error.name)) return 'invalid';
        throw error;
      }
    },
  };
  return provider;
}

/** Amazon Cognito adapter (cognito-local on the local stack). */
export const cognitoIdentityProvider: IdentityProvider = identityProviderOver(cognitoClient);

/**
 * The adapter for a caller that paces its calls (the bulk worker): a call Cognito refuses for its rate
 * is tried again once `pace` gives it a turn (`pacedCognitoClient`), so its retries count against the
 * caller's pace instead of adding to it.
 */
export function pacedCognitoIdentityProvider(pace: Pace): IdentityProvider {
  const client = pacedCognitoClient(pace);
  return identityProviderOver(() => client);
}
