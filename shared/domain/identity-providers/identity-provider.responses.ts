import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { sharedResponses } from '../../kernel/schemas/responses';

/** What the identity providers area answers, made on first call (by the API description), never as a function loads. */
export const identityProviderResponses = lazy(() => {
  const { dateTime } = sharedResponses();

  /** A provider as the API answers it: never its client secret. */
  const identityProviderSchema = z
    .strictObject({
      id: z.uuid().check(z.describe("Names the provider's audit events (`resource.uuid`) and change events")),
      alias: z.string(),
      displayName: z.string(),
      issuer: z.string(),
      clientId: z.string(),
      domains: z.array(z.string()),
      enforce: z.boolean(),
      redirectUri: z.string().check(z.describe("Where the provider sends people back: register it as the application's sign-in redirect URI")),
      authorizationEndpoint: z.string().check(z.describe("Read from the provider's discovery document at the last create or update")),
      tokenEndpoint: z.string(),
      jwksUri: z.string(),
      createdAt: dateTime,
      updatedAt: dateTime,
    })
    .register(schemaRegistry, { id: 'IdentityProvider' });

  return { identityProviderSchema };
});
export type IdentityProviderResponse = z.output<ReturnType<typeof identityProviderResponses>['identityProviderSchema']>;
