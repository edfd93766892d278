import { config, ConfigError } from '../../shared/config';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { ok, type Reply } from '../../shared/http/types';
import { languageOf } from '../../shared/mail/language-header';
import {
  activateUser,
  createUser,
  deleteUser,
  listUsers,
  quicksearchUsers,
  readUser,
  signInAddress,
  updateUser,
  type MailContext,
} from '../../shared/users/user-admin.service';
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
import { currentUser } from '../../shared/users/user.service';

/** Users of one organization (spec 4.3). */

/** The `language` header (default `en`) and the configured sign-in address. */
function mailContext(headers: Record<string, string | undefined>): MailContext {
  const language = languageOf(headers);
  const template = config().signInUrl;
  if (!template) throw new ConfigError('Missing environment variable SIGN_IN_URL: the sign-in address e-mails give');
  return { language, signInUrl: signInAddress(template) };
}

const noContent = (): Reply => ({ status: 204 });

/** The user the bearer token belongs to. */
export const identityProvider = userRoute({
  schemas: { path: orgPathSchema },
  handle: async ({ path, caller }) => ok(toUserResponse(currentUser(caller, path.orgUUID))),
});

export const list = userRoute({
  schemas: { path: orgPathSchema, query: userListQuerySchema },
  handle: async ({ path, query, caller }) => {
    const page = await listUsers(caller, path.orgUUID, query);
    return ok({ ...page, content: page.content.map(toUserResponse) });
  },
});

export const quicksearch = userRoute({
  schemas: { path: orgPathSchema, query: quicksearchQuerySchema },
  handle: async ({ path, query, caller }) => ok(await quicksearchUsers(caller, path.orgUUID, query.name, query.limit)),
});

export const create = userRoute({
  schemas: { path: orgPathSchema, body: createUserSchema },
  handle: async ({ path, body, headers, caller }) =>
    ok(toUserResponse(await createUser(caller, path.orgUUID, body, mailContext(headers)))),
});

export const activate = userRoute({
  schemas: { path: orgPathSchema, body: activateUserSchema },
  handle: async ({ path, body, headers, caller }) =>
    ok(toUserResponse(await activateUser(caller, path.orgUUID, body, mailContext(headers)))),
});

export const get = userRoute({
  schemas: { path: userPathSchema },
  handle: async ({ path, caller }) => ok(toUserResponse(await readUser(caller, path.orgUUID, path.userId))),
});

export const update = userRoute({
  schemas: { path: userPathSchema, body: updateUserSchema },
  handle: async ({ path, body, caller }) => ok(toUserResponse(await updateUser(caller, path.orgUUID, path.userId, body))),
});

export const remove = userRoute({
  schemas: { path: userPathSchema },
  handle: async ({ path, caller }) => {
    await deleteUser(caller, path.orgUUID, path.userId);
    return noContent();
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
};
export const handler = createFunction('users', handlers);
