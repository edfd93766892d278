import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccountRecovery, FeaturePlan, Mfa, UserPool, type UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { envNames } from '../../shared/kernel/config';
import { TEMPORARY_PASSWORD_DAYS } from '../../shared/adapters/identity/password-policy';

/** The Cognito actions a function may be granted on the user pool. */
export type UserPoolAction =
  | 'AdminInitiateAuth'
  | 'AdminGetUser'
  | 'AdminCreateUser'
  | 'AdminSetUserPassword'
  | 'AdminUpdateUserAttributes'
  | 'AdminDisableUser'
  | 'AdminEnableUser'
  | 'AdminUserGlobalSignOut';

/**
 * The Cognito user pool that holds credentials, and the console client integrators are given. The
 * username is our user uuid, so one e-mail may exist in two organizations (docs/decisions/cognito-username-is-the-user-uuid.md).
 */
export class UserDirectory extends Construct {
  readonly userPool: UserPool;
  readonly consoleClient: UserPoolClient;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      signInAliases: { username: true },
      standardAttributes: { email: { required: true, mutable: true } },
      selfSignUpEnabled: false,
      // The API's default password policy (docs/api/users.md); "a special character or a digit" is enforced by our own code,
      // since Cognito can only require both or neither.
      passwordPolicy: {
        minLength: 6,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: false,
        requireSymbols: false,
        tempPasswordValidity: Duration.days(TEMPORARY_PASSWORD_DAYS),
      },
      accountRecovery: AccountRecovery.NONE,
      mfa: Mfa.OFF,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.consoleClient = this.userPool.addClient('ConsoleClient', {
      generateSecret: false,
      authFlows: { adminUserPassword: true },
      disableOAuth: true,
      preventUserExistenceErrors: true,
    });

    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG1',
        reason:
          "The API's password policy (docs/api/users.md) is the identity provider's default: at least 6 characters with " +
          'upper and lower case and a digit or special character (the last is checked in shared/).',
      },
      {
        id: 'AwsSolutions-COG2',
        reason:
          "The realm's token endpoint (docs/api/auth.md#token-endpoint) answers the OAuth password grant with username and password only; it has " +
          'no step where a second factor could be presented.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'Every sign-in is a server-side AdminInitiateAuth from the auth function, so the Plus plan\'s ' +
          'risk scoring of end-user devices has no signal to work on; guessing is bounded by the API ' +
          "stage's throttling.",
      },
    );
  }
}

/**
 * Sets USER_POOL_ID and USER_POOL_CLIENT_ID (every function's configuration requires them) and grants
 * exactly the given Cognito actions on this pool, if any.
 */
export function bindUserPool(fn: LambdaFunction, directory: UserDirectory, actions: readonly UserPoolAction[]): void {
  if (actions.length > 0) directory.userPool.grant(fn, ...actions.map((action) => `cognito-idp:${action}`));
  fn.addEnvironment(envNames.userPoolId, directory.userPool.userPoolId);
  bindConsoleClient(fn, directory);
}

/** Sets USER_POOL_CLIENT_ID only: the console's client id is public (an OAuth client without a secret), and names no access. */
export function bindConsoleClient(fn: LambdaFunction, directory: UserDirectory): void {
  fn.addEnvironment(envNames.userPoolClientId, directory.consoleClient.userPoolClientId);
}
