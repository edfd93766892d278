import {
  AdminCreateUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  AdminUpdateUserAttributesCommand,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider';
import { cognitoClient } from '../clients/cognito';
import { config } from '../config';
import { logger } from '../logger';

/** Port: where credentials live. The username is always our user uuid. */
export interface IdentityProvider {
  /** Registers a user with a permanent password; registering an existing username again resets it. */
  createUser(input: { username: string; email: string; password: string }): Promise<void>;
  /** True when the password is the user's; false for any credential failure. */
  verifyPassword(username: string, password: string): Promise<boolean>;
  /** Changes the sign-in e-mail (kept verified: an ADMIN vouches for it). */
  updateEmail(username: string, email: string): Promise<void>;
  /** Sets a permanent password. */
  setPassword(username: string, password: string): Promise<void>;
  /** Blocks sign-in (logical deletion); idempotent. */
  disable(username: string): Promise<void>;
  /** Allows sign-in again (reactivation); idempotent. */
  enable(username: string): Promise<void>;
}

const credentialFailures = new Set([
  'NotAuthorizedException',
  'UserNotFoundException',
  'InvalidPasswordException',
  'PasswordResetRequiredException',
  'UserNotConfirmedException',
]);

/** Amazon Cognito adapter (cognito-local on the local stack). */
export const cognitoIdentityProvider: IdentityProvider = {
  async createUser({ username, email, password }) {
    const { userPoolId } = config();
    try {
      await cognitoClient().send(
        new AdminCreateUserCommand({
          UserPoolId: userPoolId,
          Username: username,
          MessageAction: 'SUPPRESS',
          UserAttributes: [
            { Name: 'email', Value: email },
            { Name: 'email_verified', Value: 'true' },
          ],
        }),
      );
    } catch (error) {
      // A retry after a crash finds the account made by the earlier attempt: adopt it.
      if (!(error instanceof UsernameExistsException)) throw error;
    }
    await cognitoIdentityProvider.setPassword(username, password);
  },

  async updateEmail(username, email) {
    await cognitoClient().send(
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

  async setPassword(username, password) {
    await cognitoClient().send(
      new AdminSetUserPasswordCommand({ UserPoolId: config().userPoolId, Username: username, Password: password, Permanent: true }),
    );
  },

  async disable(username) {
    await cognitoClient().send(new AdminDisableUserCommand({ UserPoolId: config().userPoolId, Username: username }));
  },

  async enable(username) {
    await cognitoClient().send(new AdminEnableUserCommand({ UserPoolId: config().userPoolId, Username: username }));
  },

  async verifyPassword(username, password) {
    const { userPoolId, userPoolClientId } = config();
    try {
      const result = await cognitoClient().send(
        new AdminInitiateAuthCommand({
          UserPoolId: userPoolId,
          ClientId: userPoolClientId,
          AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
          AuthParameters: { USERNAME: username, PASSWORD: password },
        }),
      );
      if (result.ChallengeName) {
        logger.warn('identity provider asked for a challenge; refusing the password grant', {
          challenge: result.ChallengeName,
        });
        return false;
      }
      return Boolean(result.AuthenticationResult);
    } catch (error) {
      if (error instanceof Error && credentialFailures.has(error.name)) return false;
      throw error;
    }
  },
};
