import { authorizeOrgAdmin, authorizeOrgMember, authorizeUserAccess, type OrgScope } from '../../shared/access/org-access';
import { auditEventsQuerySchema } from '../../shared/audit-trail/audit-trail.schemas';
import { toAuditEventResponse } from '../../shared/audit-trail/audit-trail.mapper';
import { listAuditEvents } from '../../shared/audit-trail/audit-trail.service';
import { mailSettings } from '../../shared/config';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { pageOf } from '../../shared/http/page';
import { ok, type Reply } from '../../shared/http/types';
import { languageOf } from '../../shared/mail/language-header';
import { activateUser, createUser, deleteUser, updateUser } from '../../shared/users/user-lifecycle';
import { signInAddress, type MailContext } from '../../shared/users/user-mail';
import { listUsers, quicksearchUsers, readUser, userReadKey } from '../../shared/users/user-queries';
import { clearSignInLock, readSignInLock } from '../../shared/users/user-sign-in-lock';
import { toUserResponse } from '../../shared/users/user.mapper';
import {
  activateUserSchema,
  createUserSchema,
  orgPathSchema,
  quicksearchQuerySchema,
  updateUserSchema,
  userListQuerySchema,
  userPathSchema,
} from '../../shared/users/user.schemas';

/** Users of one organization (spec 4.3). */

/** The `language` header (default `en`) and the configured sign-in address. */
function mailContext(headers: Record<string, string | undefined>): MailContext {
  return { language: languageOf(headers), signInUrl: signInAddress(mailSettings().signInUrl) };
}

const noContent = (): Reply => ({ status: 204 });

/** The user the bearer token belongs to. */
export const identityProvider = userRoute({
  schemas: { path: orgPathSchema },
  handle: async ({ path, caller }) => ok(toUserResponse((await authorizeOrgMember(caller, path.orgUUID)).caller)),
});

export const list = userRoute({
  schemas: { path: orgPathSchema, query: userListQuerySchema },
  handle: async ({ path, query, caller }) => {
    const { users, total } = await listUsers(await authorizeOrgAdmin(caller, path.orgUUID), query);
    return ok(pageOf(users.map(toUserResponse), total, query.page, query.linesPerPage, 0));
  },
});

export const quicksearch = userRoute({
  schemas: { path: orgPathSchema, query: quicksearchQuerySchema },
  handle: async ({ path, query, caller }) =>
    ok(await quicksearchUsers(await authorizeOrgAdmin(caller, path.orgUUID), query.name, query.limit)),
});

/** A keyed create or reactivation whose answer was lost answers the user it changed, as it reads now. */
const replayUser = { replay: async ({ uuid }: { uuid: string }, { scope }: { scope: OrgScope }) => ok(toUserResponse(await readUser(scope, uuid))) };

export const create = userRoute({
  schemas: { path: orgPathSchema, body: createUserSchema },
  authorize: ({ path, caller }) => authorizeOrgAdmin(caller, path.orgUUID),
  idempotent: replayUser,
  handle: async ({ scope, body, headers }) => ok(toUserResponse(await createUser(scope, body, mailContext(headers)))),
});

export const activate = userRoute({
  schemas: { path: orgPathSchema, body: activateUserSchema },
  authorize: ({ path, caller }) => authorizeOrgAdmin(caller, path.orgUUID),
  idempotent: replayUser,
  handle: async ({ scope, body, headers }) => ok(toUserResponse(await activateUser(scope, body, mailContext(headers)))),
});

export const get = userRoute({
  schemas: { path: userPathSchema },
  // The addressed user comes in the caller's read; `readUser` reads it only when it was not prefetched.
  prefetch: (path) => [userReadKey(path.orgUUID, path.userId)],
  handle: async ({ path, caller, prefetched }) =>
    ok(toUserResponse(await readUser(await authorizeUserAccess(caller, path.orgUUID, path.userId, 'read'), path.userId, prefetched))),
});

export const update = userRoute({
  schemas: { path: userPathSchema, body: updateUserSchema },
  handle: async ({ path, body, caller }) =>
    ok(toUserResponse(await updateUser(await authorizeUserAccess(caller, path.orgUUID, path.userId, 'update'), path.userId, body))),
});

export const remove = userRoute({
  schemas: { path: userPathSchema },
  handle: async ({ path, caller }) => {
    await deleteUser(await authorizeOrgAdmin(caller, path.orgUUID), path.userId);
    return noContent();
  },
});

/** The user's failed sign-ins and lock: ADMIN only, like Keycloak's attack-detection endpoint. */
export const bruteForce = userRoute({
  schemas: { path: userPathSchema },
  handle: async ({ path, caller }) => ok(await readSignInLock(await authorizeOrgAdmin(caller, path.orgUUID), path.userId)),
});

export const clearBruteForce = userRoute({
  schemas: { path: userPathSchema },
  handle: async ({ path, caller }) => {
    await clearSignInLock(await authorizeOrgAdmin(caller, path.orgUUID), path.userId);
    return noContent();
  },
});

/** The organization's audit events, newest first, filtered: ADMIN only. */
export const auditEvents = userRoute({
  schemas: { path: orgPathSchema, query: auditEventsQuerySchema },
  handle: async ({ path, query, caller }) => {
    const scope = await authorizeOrgAdmin(caller, path.orgUUID, 'Only an ADMIN reads audit events');
    const { events, total } = await listAuditEvents(scope, query);
    return ok(pageOf(events.map(toAuditEventResponse), total, query.page, query.linesPerPage, 0));
  },
});

export const handlers = {
  'users.identityProvider': identityProvider,
  'users.list': list,
  'users.quicksearch': quicksearch,
  'users.create': create,
  'users.activate': activate,
  'users.get': get,
  'users.update': update,
  'users.delete': remove,
  'users.bruteForce': bruteForce,
  'users.clearBruteForce': clearBruteForce,
  'users.auditEvents': auditEvents,
};
export const handler = createFunction('users', handlers);
