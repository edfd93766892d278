import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { shapeOf } from '../../kernel/schemas/declared-fields';
import { fieldSchemas, queryInt } from '../../kernel/schemas/fields';
import { sharedResponses } from '../../kernel/schemas/responses';
import { passwordProblem } from './password-policy.port';
import { acceptedBack, userFields, type UserSchemaKit } from './user.fields';

/** Request schemas of the users group (docs/api/users.md#the-user, plus the access template). */

/** `password` and `confirmPassword` come together and are equal. */
function passwordsAgree(body: { password?: string; confirmPassword?: string }, context: z.core.$RefinementCtx) {
  if (body.password !== undefined && body.confirmPassword !== body.password) {
    context.addIssue({
      code: 'custom',
      path: ['confirmPassword'],
      message: body.confirmPassword === undefined ? 'Required with password' : 'Must equal password',
    });
  }
  if (body.password === undefined && body.confirmPassword !== undefined) {
    context.addIssue({ code: 'custom', path: ['password'], message: 'Required with confirmPassword' });
  }
}

/** What `user.fields.ts` makes its schemas with. */
export const userSchemaKit = lazy(
  (): UserSchemaKit => ({
    z: {
      array: z.array,
      boolean: z.boolean,
      describe: z.describe,
      email: z.email,
      enum: z.enum,
      maxLength: z.maxLength,
      minLength: z.minLength,
      nullable: z.nullable,
      optional: z.optional,
      pipe: z.pipe,
      regex: z.regex,
      strictObject: z.strictObject,
      string: z.string,
      superRefine: z.superRefine,
      trim: z.trim,
      uuid: z.uuid,
    },
    uuid: fieldSchemas().uuidSchema,
    dateTime: sharedResponses().dateTime,
    passwordProblem,
  }),
);

/** The users group's request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const userSchemas = lazy(() => {
  const { uuidSchema, queryPageToken, queryDirection } = fieldSchemas();

  /** The fields of `user.fields.ts` bodies take. */
  const bodyFields = shapeOf(userFields, 'body', { kit: userSchemaKit() });

  /** What a user read returns and a client may send back unchanged: accepted and ignored. */
  const responseOnlyFields = Object.fromEntries(acceptedBack.map((name) => [name, z.optional(z.unknown())])) as Record<
    (typeof acceptedBack)[number],
    z.ZodMiniOptional<z.ZodMiniUnknown>
  >;

  const createUserSchema = z.strictObject(bodyFields).check(z.superRefine(passwordsAgree));

  const updateUserSchema = z.strictObject({ ...bodyFields, ...responseOnlyFields }).check(z.superRefine(passwordsAgree));

  /** The user is named by `email`; the other fields, all optional, are applied as an update would. */
  const activateUserSchema = z
    .strictObject({ ...bodyFields, ...responseOnlyFields, name: z.optional(bodyFields.name) })
    .check(z.superRefine(passwordsAgree));

  const orgPathSchema = z.object({ orgUUID: uuidSchema });
  /**
   * `userId` is any short text, lower-cased: one that is no user's uuid is a 404 like any unknown user
   * (it is also what `DELETE …/users/identity-provider` reaches, as in API Gateway).
   */
  const userPathSchema = z.object({
    orgUUID: uuidSchema,
    userId: z.pipe(
      z.string().check(z.maxLength(100, { message: 'Must be at most 100 characters' })),
      z.transform((id) => id.toLowerCase()),
    ),
  });

  const userListQuerySchema = z.object({
    page: queryInt(0, 1_000_000, 0),
    pageToken: queryPageToken,
    linesPerPage: queryInt(1, 100, 5),
    orderBy: z.pipe(
      z.optional(z.enum(['createdAt', 'name', 'email', 'company'], { message: 'Must be one of createdAt, name, email, company' })),
      z.transform((value) => value ?? 'createdAt'),
    ),
    direction: queryDirection,
    searchTerms: z.optional(z.string().check(z.maxLength(200, { message: 'Must be at most 200 characters' }))),
    status: z.pipe(
      z.optional(
        z.pipe(
          z.pipe(
            z.string(),
            z.transform((value) => value.toUpperCase()),
          ),
          z.enum(['ACTIVE', 'DELETED', 'ALL'], { message: 'Must be ACTIVE, DELETED or ALL' }),
        ),
      ),
      z.transform((value) => value ?? 'ACTIVE'),
    ),
  });

  const quicksearchQuerySchema = z.object({
    name: z.string().check(z.maxLength(200, { message: 'Must be at most 200 characters' })),
    limit: queryInt(1, 50, 6),
  });

  /** One of a user's offline sessions: its id as the listing gives it (case matters). */
  const offlineSessionPathSchema = z.extend(userPathSchema, {
    sessionId: z.string().check(z.minLength(1), z.maxLength(64, { message: 'Must be at most 64 characters' })),
  });

  /** `GET …/offline-sessions`: `limit` sessions a page (1 to 100, 100 by default: a user holds at most 100), then `pageToken`'s. */
  const offlineSessionsQuerySchema = z.strictObject({ limit: queryInt(1, 100, 100), pageToken: queryPageToken });
  return {
    createUserSchema,
    updateUserSchema,
    activateUserSchema,
    orgPathSchema,
    userPathSchema,
    offlineSessionPathSchema,
    offlineSessionsQuerySchema,
    userListQuerySchema,
    quicksearchQuerySchema,
  };
});
