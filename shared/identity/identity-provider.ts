import {
  AdminCreateUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
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
    await cognitoClient().send(
      new AdminSetUserPasswordCommand({ UserPoolId: userPoolId, Username: username, Password: password, Permanent: true }),
    );
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
