import * as z from 'zod';
import { queryDirection, queryInt, queryPageToken, uuidSchema } from '../../kernel/schemas/fields';
import { passwordProblem } from '../../adapters/identity/password-policy';
import { roles } from './user.entities';

/** Request schemas of the users group (docs/api/users.md#the-user, plus the access template). */

const singleLine = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { message: `Must be at most ${max} characters` })
    .regex(/^[^\p{Cc}]*$/u, { message: 'Must be a single line of text' });

const nameSchema = singleLine(200).min(1, { message: 'Must not be blank' });
const emailSchema = z
  .string()
  .trim()
  .max(254, { message: 'Must be at most 254 characters' })
  .pipe(z.email({ message: 'Must be an e-mail address' }));

const passwordSchema = z.string().superRefine((password, context) => {
  const problem = passwordProblem(password);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

const permissionSchema = z.strictObject({ environmentUuid: uuidSchema, botUuid: uuidSchema.optional() });

const accessFields = {
  admin: z.boolean().optional(),
  role: z.enum(roles, { message: `Must be one of ${roles.join(', ')}` }).optional(),
  permissions: z.array(permissionSchema).max(500, { message: 'Must have at most 500 permissions' }).optional(),
};

const profileFields = {
  name: nameSchema,
  email: emailSchema,
  image: singleLine(2048).nullable().optional(),
  company: singleLine(200).nullable().optional(),
  password: passwordSchema.optional(),
  confirmPassword: z.string().optional(),
};

/** What a user read returns and a client may send back unchanged: accepted and ignored. */
const responseOnlyFields = {
  uuid: z.unknown().optional(),
  orgUUID: z.unknown().optional(),
  createdAt: z.unknown().optional(),
  status: z.unknown().optional(),
};

/** `password` and `confirmPassword` come together and are equal. */
function passwordsAgree(body: { password?: string; confirmPassword?: string }, context: z.RefinementCtx) {
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

export const createUserSchema = z.strictObject({ ...profileFields, ...accessFields }).superRefine(passwordsAgree);

export const updateUserSchema = z
  .strictObject({ ...profileFields, ...accessFields, ...responseOnlyFields })
  .superRefine(passwordsAgree);

/** The user is named by `email`; the other fields, all optional, are applied as an update would. */
export const activateUserSchema = z
  .strictObject({ ...profileFields, ...accessFields, ...responseOnlyFields, name: nameSchema.optional() })
  .superRefine(passwordsAgree);

export const orgPathSchema = z.object({ orgUUID: uuidSchema });
/**
 * `userId` is any short text, lower-cased: one that is no user's uuid is a 404 like any unknown user
 * (it is also what `DELETE …/users/identity-provider` reaches, as in API Gateway).
 */
export const userPathSchema = z.object({
  orgUUID: uuidSchema,
  userId: z
    .string()
    .max(100, { message: 'Must be at most 100 characters' })
    .transform((id) => id.toLowerCase()),
});

export const userListQuerySchema = z.object({
  page: queryInt(0, 1_000_000, 0),
  pageToken: queryPageToken,
  linesPerPage: queryInt(1, 100, 5),
  orderBy: z
    .enum(['createdAt', 'name', 'email', 'company'], { message: 'Must be one of createdAt, name, email, company' })
    .optional()
    .transform((value) => value ?? 'createdAt'),
  direction: queryDirection,
  searchTerms: z.string().max(200, { message: 'Must be at most 200 characters' }).optional(),
  status: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(['ACTIVE', 'DELETED', 'ALL'], { message: 'Must be ACTIVE, DELETED or ALL' }))
    .optional()
    .transform((value) => value ?? 'ACTIVE'),
});

export const quicksearchQuerySchema = z.object({
  name: z.string().max(200, { message: 'Must be at most 200 characters' }),
  limit: queryInt(1, 50, 6),
});
