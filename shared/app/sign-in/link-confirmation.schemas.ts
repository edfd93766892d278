import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';

/** The confirmation page's form (`link-confirmation.ts` reads it itself), described to the document; made on first call. */
export const linkConfirmationSchemas = lazy(() => {
  const confirmLinkFormSchema = z.object({
    confirmation: z.string().check(z.meta({ description: 'The confirmation the page names' })),
    password: z.optional(z.string()).check(z.meta({ description: "The user's current password" })),
    username: z.optional(z.string()).check(z.meta({ description: "The user's e-mail, for password managers (not read)" })),
    kc_locale: z.optional(z.string()),
  });
  return { confirmLinkFormSchema };
});
