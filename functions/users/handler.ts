import * as z from 'zod';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { uuidSchema } from '../../shared/http/schemas';
import { ok } from '../../shared/http/types';
import { toUserResponse } from '../../shared/users/user.mapper';
import { currentUser } from '../../shared/users/user.service';

const orgPath = z.object({ orgUUID: uuidSchema });

/** The user the bearer token belongs to. */
export const identityProvider = userRoute({
  schemas: { path: orgPath },
  handle: async ({ path, caller }) => ok(toUserResponse(currentUser(caller, path.orgUUID))),
});

export const handlers = { 'users.identityProvider': identityProvider };
export const handler = createFunction('users', handlers);
