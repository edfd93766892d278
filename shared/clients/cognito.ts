import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { config } from '../config';
import { clientOptions, lazy, withClientPlugins } from './client-options';

export const cognitoClient = lazy(() =>
  withClientPlugins(new CognitoIdentityProviderClient(clientOptions(config().endpoints.cognito))),
);
