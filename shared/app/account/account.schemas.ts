import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';

/** The account page's forms, as the document describes them (the page reads them itself). */

/** The account page's form schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const accountSchemas = lazy(() => {
  const accountSignInSchema = z
    .object({ username: z.optional(z.string().check(z.describe("E-mail address, the realm's sign-in page's `login_hint`"))), kc_locale: z.optional(z.enum(['en', 'es', 'ja', 'pt'])) })
    .register(schemaRegistry, { id: 'AccountSignInForm' });

  /** The password form: the current password is asked for unless the sign-in just proved it. */
  const accountPasswordSchema = z
    .object({
      csrf: z.string().check(z.describe('The token of the page that sent the form')),
      password: z.optional(z.string()).check(z.describe('The current password (when changing it)')),
      'password-new': z.string(),
      'password-confirm': z.string(),
    })
    .register(schemaRegistry, { id: 'AccountPasswordForm' });

  const accountSignOutSchema = z.object({ csrf: z.string() }).register(schemaRegistry, { id: 'AccountSignOutForm' });

  const accountRevokeOfflineTokenSchema = z
    .object({
      csrf: z.string().check(z.describe('The token of the page that sent the form')),
      session: z.string().check(z.describe('The offline session to end (its id, as the page lists it)')),
    })
    .register(schemaRegistry, { id: 'AccountRevokeOfflineTokenForm' });

  return { accountSignInSchema, accountPasswordSchema, accountSignOutSchema, accountRevokeOfflineTokenSchema };
});
