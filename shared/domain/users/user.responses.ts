import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { pageSchemaOf, sharedResponses } from '../../kernel/schemas/responses';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { userFields } from './user.fields';
import { userSchemaKit } from './user.schemas';

/**
 * What the users area answers. Mappers return these types, so a field they let out fails the OpenAPI document's response tests.
 * Made on first call (by the API description), never as a function loads.
 */
export const userResponses = lazy(() => {
  const { dateTime } = sharedResponses();

  /** The User (docs/api/users.md#the-user) plus `role`, `permissions` and `status` (`user.fields.ts`); only these fields ever leave. */
  const userSchema = z
    .strictObject(shapeOf(userFields, 'response', { kit: userSchemaKit() }))
    .register(schemaRegistry, { id: 'User' });

  const userPageSchema = pageSchemaOf(userSchema, 'UserPage', 'Page of users; `number` is 0-based.');

  /** Keycloak's attack-detection view of one user. */
  const bruteForceStatusSchema = z
    .object({
      disabled: z.boolean().check(z.describe('Whether sign-in is locked now')),
      numFailures: z.int().check(z.gte(0), z.describe('Consecutive failed password sign-ins')),
      lastFailure: z.int().check(z.gte(0), z.describe('When the last one was, in epoch milliseconds (0 if none)')),
      lockedUntil: z.nullable(z.iso.datetime()).check(z.describe('When the lock ends, if locked')),
    })
    .register(schemaRegistry, { id: 'BruteForceStatus' });

  /** One of a user's offline sessions (its refresh token never leaves). */
  const offlineSessionSchema = z
    .strictObject({
      id: z.string().check(z.describe('The session id (`session_state` of its token responses)')),
      clientId: z.string().check(z.describe('The client that signed in')),
      createdAt: dateTime,
      lastUsedAt: dateTime.check(z.describe('Its last refresh (its sign-in, when never refreshed)')),
      expiresAt: dateTime.check(z.describe('When it ends unless refreshed before (each refresh moves it)')),
    })
    .register(schemaRegistry, { id: 'OfflineSession' });

  return { userSchema, userPageSchema, bruteForceStatusSchema, offlineSessionSchema };
});
export type UserResponse = z.output<ReturnType<typeof userResponses>['userSchema']>;
export type OfflineSessionResponse = z.output<ReturnType<typeof userResponses>['offlineSessionSchema']>;
