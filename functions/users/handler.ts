import { usersApi } from '../../shared/edge/api/users.api';
import { webhooksApi } from '../../shared/edge/api/webhooks.api';
import { identityProvidersApi } from '../../shared/edge/api/identity-providers.api';
import { toAuditEventResponse } from '../../shared/app/audit-trail/audit-trail.mapper';
import { listAuditEvents, type AuditPosition } from '../../shared/app/audit-trail/audit-trail.service';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { cursorOf } from '../../shared/edge/http/cursor-page';
import { pageOf } from '../../shared/edge/http/page';
import { noContent, ok } from '../../shared/edge/http/types';
import { languageOf } from '../../shared/edge/http/language-header';
import type { OrgScope } from '../../shared/app/access/org-access';
import { activateUser, createUser, deleteUser, updateUser, type MailRequestContext } from '../../shared/app/users/user-lifecycle';
import { listUsers, readUser, userReadKey } from '../../shared/app/users/user-queries';
import { quicksearchUsers } from '../../shared/app/users/user-quicksearch';
import { clearSignInLock, readSignInLock } from '../../shared/app/users/user-sign-in-lock';
import {
  createIdentityProvider,
  deleteIdentityProvider,
  listIdentityProviders,
  readIdentityProvider,
  toIdentityProviderResponse,
  updateIdentityProvider,
} from '../../shared/app/identity-providers/identity-provider.service';
import { unlinkUserFromProvider } from '../../shared/app/identity-providers/user-link';
import { listOfflineSessions, revokeOfflineSession } from '../../shared/app/users/user-offline-sessions';
import { toOfflineSessionResponse, toUserResponse } from '../../shared/app/users/user-answers';
import {
  createWebhook,
  deleteWebhook,
  deliveryAttemptsPage,
  listWebhooks,
  readWebhook,
  redeliver,
  rotateSecret,
  sendPing,
  toAttemptResponse,
  toScheduledResponse,
  toWebhookResponse,
  updateWebhook,
} from '../../shared/app/webhooks/webhook.service';

/** Users of one organization (docs/api/users.md), a user's sign-in lock, the organization's audit trail, its webhook subscriptions and its OpenID providers. */

/** The `language` header (default `en`) and the configured sign-in address. */
function mailContext(headers: Record<string, string | undefined>): MailRequestContext {
  return { language: languageOf(headers) };
}

/** An answer carrying a webhook's signing secret is kept by no cache. */
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** A change that answers nothing: 204 once it is made. */
async function noContentAfter(change: Promise<unknown>) {
  await change;
  return noContent();
}

/** A keyed create or reactivation whose answer was lost answers the user it changed, as it reads now. */
const replayUser = { replay: async ({ uuid }: { uuid: string }, { scope }: { scope: OrgScope }) => ok(toUserResponse(await readUser(scope, uuid))) };

export const handlers = routes(
  tokenOperation(usersApi.identityProvider, {
    handle: async ({ caller }) => ok(toUserResponse(caller.user)),
  }),
  tokenOperation(usersApi.list, {
    handle: async (input) => {
      const { query, scope } = input;
      const cursor = await cursorOf<string>(usersApi.list.id, scope.orgUuid, input, 'page');
      const { users, total, next } = await listUsers(scope, query, cursor.start?.after);
      const number = cursor.start?.number ?? query.page;
      return cursor.reply(pageOf(users.map(toUserResponse), total, number, query.linesPerPage, 0), next === undefined ? undefined : { number: number + 1, after: next });
    },
  }),
  tokenOperation(usersApi.quicksearch, {
    handle: async ({ query, scope }) => ok(await quicksearchUsers(scope, query.name, query.limit)),
  }),
  tokenOperation(usersApi.create, {
    idempotent: replayUser,
    handle: async ({ body, headers, scope }) => ok(toUserResponse(await createUser(scope, body, mailContext(headers)))),
  }),
  tokenOperation(usersApi.activate, {
    idempotent: replayUser,
    handle: async ({ body, headers, scope }) => ok(toUserResponse(await activateUser(scope, body, mailContext(headers)))),
  }),
  tokenOperation(usersApi.get, {
    // The addressed user comes in the caller's read; `readUser` reads it only when it was not prefetched.
    prefetch: (path) => [userReadKey(path.orgUUID, path.userId)],
    handle: async ({ path, scope, prefetched }) => ok(toUserResponse(await readUser(scope, path.userId, prefetched))),
  }),
  tokenOperation(usersApi.update, {
    handle: async ({ path, body, scope }) => ok(toUserResponse(await updateUser(scope, path.userId, body))),
  }),
  tokenOperation(usersApi.delete, {
    handle: async ({ path, scope }) => noContentAfter(deleteUser(scope, path.userId)),
  }),
  // Keycloak's attack detection: ADMIN only.
  tokenOperation(usersApi.bruteForce, {
    handle: async ({ path, scope }) => ok(await readSignInLock(scope, path.userId)),
  }),
  tokenOperation(usersApi.clearBruteForce, {
    handle: async ({ path, scope }) => noContentAfter(clearSignInLock(scope, path.userId)),
  }),
  tokenOperation(usersApi.offlineSessions, {
    handle: async (input) => {
      const { path, query, scope } = input;
      // A bare array, as before: the next page's token comes in the `Link` header alone.
      const cursor = await cursorOf<string>(usersApi.offlineSessions.id, `${scope.orgUuid}/${path.userId}`, input);
      const { sessions, next } = await listOfflineSessions(scope, path.userId, query.limit, cursor.start?.after);
      return ok(sessions.map(toOfflineSessionResponse), await cursor.headers(next === undefined ? undefined : { number: 0, after: next }));
    },
  }),
  tokenOperation(usersApi.revokeOfflineSession, {
    handle: async ({ path, scope }) => noContentAfter(revokeOfflineSession(scope, path.userId, path.sessionId)),
  }),
  tokenOperation(usersApi.removeIdentityProviderLink, {
    handle: async ({ path, scope }) => noContentAfter(unlinkUserFromProvider(scope, path.userId)),
  }),
  tokenOperation(usersApi.auditEvents, {
    handle: async (input) => {
      const { query, scope } = input;
      const cursor = await cursorOf<AuditPosition>(usersApi.auditEvents.id, scope.orgUuid, input, 'page');
      const { events, total, number, next } = await listAuditEvents(scope, query, cursor.start);
      const page = pageOf(events.map(toAuditEventResponse), total, number, query.linesPerPage, 0);
      return cursor.reply(page, next === undefined ? undefined : { number: number + 1, after: next });
    },
  }),
  tokenOperation(webhooksApi.create, {
    handle: async ({ body, scope }) => {
      const { webhook, secret } = await createWebhook(scope, body);
      return { status: 201, body: { ...toWebhookResponse(webhook), secret }, headers: noStore };
    },
  }),
  tokenOperation(webhooksApi.list, {
    handle: async ({ scope }) => ok((await listWebhooks(scope)).map(toWebhookResponse)),
  }),
  tokenOperation(webhooksApi.get, {
    handle: async ({ path, scope }) => ok(toWebhookResponse(await readWebhook(scope, path.webhookId))),
  }),
  tokenOperation(webhooksApi.update, {
    handle: async ({ path, body, scope }) => ok(toWebhookResponse(await updateWebhook(scope, path.webhookId, body))),
  }),
  tokenOperation(webhooksApi.delete, {
    handle: async ({ path, scope }) => noContentAfter(deleteWebhook(scope, path.webhookId)),
  }),
  tokenOperation(webhooksApi.rotate, {
    handle: async ({ path, scope }) => {
      const { webhook, secret } = await rotateSecret(scope, path.webhookId);
      return ok({ ...toWebhookResponse(webhook), secret }, noStore);
    },
  }),
  tokenOperation(webhooksApi.deliveries, {
    handle: async (input) => {
      const { path, query, scope } = input;
      // The body is a bare array (kept as it was): the next page's token comes in the `Link` header alone.
      const cursor = await cursorOf<string>(webhooksApi.deliveries.id, `${scope.orgUuid}/${path.webhookId}`, input);
      const { attempts, next } = await deliveryAttemptsPage(scope, path.webhookId, query.limit, cursor.start?.after);
      return ok(attempts.map(toAttemptResponse), await cursor.headers(next === undefined ? undefined : { number: 0, after: next }));
    },
  }),
  tokenOperation(webhooksApi.redeliver, {
    handle: async ({ path, scope }) => ({ status: 202, body: toScheduledResponse(await redeliver(scope, path.webhookId, path.deliveryId)) }),
  }),
  tokenOperation(webhooksApi.test, {
    handle: async ({ path, scope }) => ({ status: 202, body: toScheduledResponse(await sendPing(scope, path.webhookId)) }),
  }),
  tokenOperation(identityProvidersApi.create, {
    handle: async ({ body, scope }) => ({ status: 201, body: toIdentityProviderResponse(await createIdentityProvider(scope, body)) }),
  }),
  tokenOperation(identityProvidersApi.list, {
    handle: async ({ scope }) => ok((await listIdentityProviders(scope)).map(toIdentityProviderResponse)),
  }),
  tokenOperation(identityProvidersApi.get, {
    handle: async ({ path, scope }) => ok(toIdentityProviderResponse(await readIdentityProvider(scope, path.alias))),
  }),
  tokenOperation(identityProvidersApi.update, {
    handle: async ({ path, body, scope }) => ok(toIdentityProviderResponse(await updateIdentityProvider(scope, path.alias, body))),
  }),
  tokenOperation(identityProvidersApi.delete, {
    handle: async ({ path, scope }) => noContentAfter(deleteIdentityProvider(scope, path.alias)),
  }),
);

export const handler = createFunction('users', handlers);
