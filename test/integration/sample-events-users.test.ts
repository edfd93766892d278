import { expectStatus, stackApiClient } from '../support/api-client';
import { TEST_PASSWORD, passwordToken } from '../support/auth-helpers';
import type { components } from '../../clients/typescript/src/generated/api-types';
import { linkUserToProvider } from '../../shared/app/identity-providers/user-link';
import { bodyOf, deleteUser, expectNoSignIn, readUser, replayRouteEvents, subjectOf, type Replay } from '../support/sample-events';
import { stack, unique, userArea } from '../support/stack';
import { mailsTo } from '../support/user-helpers';

/** The sample events of the users function (users, audit events, webhooks, identity providers), of SCIM and of configurations. */

/** A user's offline sessions as its organization's ADMIN lists them. */
async function offlineSessionsOf(token: string, userUuid: string): Promise<unknown[]> {
  const { body } = await expectStatus(
    200,
    stackApiClient(token).GET('/user-management/org/{orgUUID}/users/{userId}/offline-sessions', { params: { path: { orgUUID: stack().orgs[0]!.uuid, userId: userUuid } } }),
  );
  return body;
}

/** Links the event's user to a provider of its organization (registered for the stack's demo issuer), as a first brokered sign-in would. */
async function withProviderLink(replay: Replay, token: string): Promise<void> {
  const alias = `event-${unique()}`;
  const body = { alias, displayName: 'Events link', issuer: stack().demoSso.issuer, clientId: 'events-link', clientSecret: 'events-link-secret', domains: [`${alias}.example`], enforce: false };
  await expectStatus(201, stackApiClient(token).POST('/user-management/org/{orgUUID}/identity-providers', { params: { path: { orgUUID: stack().orgs[0]!.uuid } }, body }));
  await linkUserToProvider(stack().orgs[0]!.uuid, replay.user!.uuid, alias, 'events-subject');
}

replayRouteEvents(['users', 'scim', 'configurations', 'feed'], {
  prepare: {
    'users.removeIdentityProviderLink': withProviderLink,
    'users.activate': async ({ user }, token) => deleteUser(token, user!.uuid),
  },
  expectations: {
    // Registered against the stack's demo OpenID provider; the secret is never answered.
    'identityProviders.create': async (result, { values }) => {
      expect(result.statusCode).toBe(201);
      expect(bodyOf(result)).toMatchObject({ alias: values.__NEW_IDP_ALIAS__, issuer: stack().demoSso.issuer, domains: [values.__NEW_IDP_DOMAIN__] });
      expect(bodyOf<Record<string, unknown>>(result).redirectUri).toMatch(new RegExp(`/realms/${stack().orgs[0]!.name}/broker/${values.__NEW_IDP_ALIAS__}/endpoint$`));
      expect(result.body).not.toContain('sample-client-secret');
    },
    // The first organization's user changes, oldest first, and the cursor after them.
    'events.feed': async (result) => {
      expect(result.statusCode).toBe(200);
      const page = bodyOf<{ events: { type: string }[]; next: string }>(result);
      expect(page.events.length).toBeGreaterThan(0);
      expect(page.events.length).toBeLessThanOrEqual(20);
      for (const event of page.events) expect(event.type).toMatch(/^com\.agentplatform\.user\./);
      expect(page.next).toMatch(/^[A-Za-z0-9_-]+$/);
    },
    'users.bruteForce': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toEqual({ disabled: false, numFailures: 0, lastFailure: 0, lockedUntil: null });
    },
    'users.clearBruteForce': async (result) => {
      expect(result.statusCode).toBe(204);
    },
    // The user the test created has never signed in with offline access.
    'users.offlineSessions': async (result) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toEqual([]);
    },
    // Its one offline session, which the event ends.
    // The link the preparation made is gone from the user, and a second removal finds none.
    'users.removeIdentityProviderLink': async (result, { user }, token) => {
      expect(result.statusCode).toBe(204);
      expect(await readUser(token, user!.uuid)).not.toHaveProperty('identityProvider');
      const again = await fetch(userArea(stack().orgs[0]!.uuid, `/users/${user!.uuid}/identity-provider-link`), { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
      expect(again.status).toBe(404);
    },
    'users.revokeOfflineSession': async (result, { user }, token) => {
      expect(result.statusCode).toBe(204);
      expect(await offlineSessionsOf(token, user!.uuid)).toEqual([]);
    },
    'users.list': async (result, { user }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({ content: [user], totalElements: 1, number: 0, size: 5, first: true, last: true });
    },
    // The user the test created has one event: its creation by the ADMIN, with the whole user as the patch.
    'users.auditEvents': async (result, { user }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toMatchObject({
        totalElements: 1,
        number: 0,
        size: 20,
        content: [
          {
            action: 'USER_CREATED',
            resource: { type: 'USER', uuid: user!.uuid },
            actor: { email: stack().orgs[0]!.admin.email },
            changes: [
              { op: 'add', path: '', value: user },
              { op: 'add', path: '/password', value: '[REDACTED]' },
            ],
          },
        ],
      });
    },
    'users.quicksearch': async (result, { user }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toEqual([user!.name]);
    },
    'users.create': async (result, { event, request, values }, token) => {
      expect(result.statusCode).toBe(200);
      const created = bodyOf<components['schemas']['User']>(result);
      expect(created).toEqual({
        ...request,
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        orgUUID: values.__ORG_UUID__,
        email: values.__NEW_EMAIL__,
        image: null,
        admin: false,
        status: 'ACTIVE',
        createdAt: expect.any(String),
      });
      expect(await readUser(token, created.uuid)).toEqual(created);
      // The welcome e-mail (with the generated password) in the `language` header's language.
      expect(await mailsTo(values.__NEW_EMAIL__!)).toMatchObject([{ subject: subjectOf('welcome', event.headers.language) }]);
    },
    'users.activate': async (result, { event, request, user }, token) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toEqual({ ...user, status: 'ACTIVE' });
      expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'ACTIVE' });
      // The password of the body signs the user in again, and the reactivation e-mail followed the welcome one.
      const password = request!.password as string;
      await expect(passwordToken({ realm: stack().orgs[0]!.name, email: user!.email, password })).resolves.toBeDefined();
      expect(await mailsTo(user!.email)).toMatchObject([
        { subject: subjectOf('welcome', undefined) },
        { subject: subjectOf('reactivation', event.headers.language) },
      ]);
    },
    'users.get': async (result, { user }) => {
      expect(result.statusCode).toBe(200);
      expect(bodyOf(result)).toEqual(user);
    },
    'users.update': async (result, { request, values, user }, token) => {
      expect(result.statusCode).toBe(200);
      const expected = { ...user, ...request, email: values.__NEW_EMAIL__, admin: false };
      expect(bodyOf(result)).toEqual(expected);
      expect(await readUser(token, user!.uuid)).toEqual(expected);
      // The new e-mail signs in; the old one no longer does.
      await expect(passwordToken({ realm: stack().orgs[0]!.name, email: values.__NEW_EMAIL__!, password: TEST_PASSWORD })).resolves.toBeDefined();
      await expectNoSignIn(user!.email);
    },
    'users.delete': async (result, { user }, token) => {
      expect(result.statusCode).toBe(204);
      expect(result.body).toBeUndefined();
      expect(await readUser(token, user!.uuid)).toEqual({ ...user, status: 'DELETED' });
      await expectNoSignIn(user!.email);
    },
  },
});
