import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas } from '../../kernel/schemas/fields';

/** Request schemas of the bulk operations (docs/api/bulk.md). */

/** The bulk operations' request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const bulkSchemas = lazy(() => {
  const { uuidSchema } = fieldSchemas();

  const orgPathSchema = z.object({ orgUUID: uuidSchema });
  const jobPathSchema = z.object({ orgUUID: uuidSchema, jobId: uuidSchema });

  const dryRunQuerySchema = z.object({
    dryRun: z.pipe(
      z.optional(z.enum(['true', 'false'], { message: 'Must be true or false' })),
      z.transform((value) => value === 'true'),
    ),
  });

  /** A multipart body with one file part, `file` (`truncated` when it was cut at the route's limit). */
  const filePartSchema = z.object(
    {
      file: z.object({ content: z.instanceof(Buffer), truncated: z._default(z.optional(z.boolean()), false) }, { message: 'Must be one file part' }),
    },
    { message: 'Must be a multipart form with a file part' },
  );

  /** Whether a `Prefer` header (RFC 7240) asks for `respond-async`, among any other preferences. */
  const respondAsyncSchema = z.pipe(
    z.optional(z.string()),
    z.transform((prefer) => /(^|[\s,;])respond-async($|[\s,;])/i.test(prefer ?? '')),
  );

  const emailSchema = z
    .string()
    .check(z.trim(), z.minLength(1, { message: 'Must not be blank' }), z.maxLength(254, { message: 'Must be at most 254 characters' }));

  const bulkDeleteBodySchema = z
    .array(emailSchema, { message: 'Must be a JSON array of e-mails' })
    .check(z.minLength(1, { message: 'Must list at least one e-mail' }), z.maxLength(1000, { message: 'Must list at most 1000 e-mails' }));

  const revocationsBodySchema = z
    .array(z.strictObject({ email: emailSchema, environmentUuid: z.optional(uuidSchema), bot: z.optional(uuidSchema) }), {
      message: 'Must be a JSON array of { email, environmentUuid?, bot? }',
    })
    .check(
      z.minLength(1, { message: 'Must list at least one item' }),
      z.maxLength(1000, { message: 'Must list at most 1000 items' }),
      z.superRefine((items, context) => {
        items.forEach((item, i) => {
          if (item.bot && !item.environmentUuid) {
            context.addIssue({ code: 'custom', path: [i, 'environmentUuid'], message: 'Required with bot' });
          }
        });
      }),
    );

  return { orgPathSchema, jobPathSchema, dryRunQuerySchema, filePartSchema, respondAsyncSchema, bulkDeleteBodySchema, revocationsBodySchema };
});
