import type * as Zod from 'zod/mini';
import { namesWhere, type StoredOf } from '../../kernel/schemas/declared-fields';
import type { fieldSchemas } from '../../kernel/schemas/fields';
import type { sharedResponses } from '../../kernel/schemas/responses';

/**
 * The fields of a user, declared once (docs/architecture.md#fields-declared-once), in the order reads
 * show them: what create, update and activate bodies take (`body`), what reads show (`response`;
 * `nullable`: `null` when absent; `read` when not as stored), how the record keeps it (`stored`: under
 * another name, or `false`: derived; `record` for a field no read shows), and which optional texts a
 * write keeps when a body leaves them out and clears on `null` or blank (`keptWhenLeftOut`). The
 * request and response schemas, the record type, the mapper and the list an update replaces are
 * derived from `userFields`.
 *
 * Its facets make their schemas with the kit `user.schemas.ts` and `user.responses.ts` pass
 * (`UserSchemaKit`) rather than with imports: the mapper, which the token and sign-in functions load for
 * audit events, then loads no schema code.
 */

/**
 * The zod functions the facets use: named one by one (`userSchemaKit` in `user.schemas.ts`), because a
 * bundle holding the whole namespace as a value would carry all of zod.
 */
export type UserZod = Pick<
  typeof Zod,
  'array' | 'boolean' | 'describe' | 'email' | 'enum' | 'maxLength' | 'minLength' | 'nullable' | 'optional' | 'pipe' | 'regex' | 'strictObject' | 'string' | 'superRefine' | 'trim' | 'uuid'
>;

/** What the users' schemas are made with: zod's functions, the request's UUID, the answers' date-time and the password policy. */
export interface UserSchemaKit {
  z: UserZod;
  uuid: ReturnType<typeof fieldSchemas>['uuidSchema'];
  dateTime: ReturnType<typeof sharedResponses>['dateTime'];
  passwordProblem: (password: string) => string | undefined;
}
type Kit = UserSchemaKit;

export const roles = ['ADMIN', 'SUPERVISOR', 'EDITOR', 'VIEWER'] as const;

const singleLine = ({ z }: Kit, max: number) =>
  z
    .string()
    .check(
      z.trim(),
      z.maxLength(max, { message: `Must be at most ${max} characters` }),
      z.regex(/^[^\p{Cc}]*$/u, { message: 'Must be a single line of text' }),
    );

/** An optional single line of text: left out keeps it, `null` or blank clears it; `null` in reads when absent. */
const optionalText = (max: number) => ({
  body: (kit: Kit) => kit.z.optional(kit.z.nullable(singleLine(kit, max))),
  response: ({ z }: Kit) => z.nullable(z.string()),
  nullable: true as const,
  keptWhenLeftOut: true as const,
});

interface Shown {
  role: string;
  permissions: { environmentUuid: string; botUuid?: string }[];
  identityProvider?: { alias: string; linkedAt: string; subject?: string };
}

export const userFields = {
  uuid: { response: ({ z }: Kit) => z.uuid() },
  orgUUID: { response: ({ z }: Kit) => z.uuid(), stored: 'orgUuid' as const },
  name: { body: (kit: Kit) => singleLine(kit, 200).check(kit.z.minLength(1, { message: 'Must not be blank' })), response: ({ z }: Kit) => z.string() },
  email: {
    body: ({ z }: Kit) =>
      z.pipe(
        z.string().check(z.trim(), z.maxLength(254, { message: 'Must be at most 254 characters' })),
        z.email({ message: 'Must be an e-mail address' }),
      ),
    response: ({ z }: Kit) => z.string(),
  },
  image: optionalText(2048),
  company: optionalText(200),
  /** Goes to the identity provider only; with `confirmPassword`, equal (`user.schemas.ts`). */
  password: {
    body: ({ z, passwordProblem }: Kit) =>
      z.optional(
        z.string().check(
          z.superRefine((password, context) => {
            const problem = passwordProblem(password);
            if (problem) context.addIssue({ code: 'custom', message: problem });
          }),
        ),
      ),
  },
  confirmPassword: { body: ({ z }: Kit) => z.optional(z.string()) },
  /** Whether the role is ADMIN: a body may say so instead of giving `role`. */
  admin: {
    body: ({ z }: Kit) => z.optional(z.boolean()),
    response: ({ z }: Kit) => z.boolean(),
    stored: false as const,
    read: (user: Shown) => user.role === 'ADMIN',
  },
  role: {
    body: ({ z }: Kit) => z.optional(z.enum(roles, { message: `Must be one of ${roles.join(', ')}` })),
    response: ({ z }: Kit) => z.enum(roles),
  },
  /** Access to one environment (a SUPERVISOR's environment-wide grant) or to one bot of it. */
  permissions: {
    body: ({ z, uuid }: Kit) =>
      z.optional(
        z.array(z.strictObject({ environmentUuid: uuid, botUuid: z.optional(uuid) })).check(z.maxLength(500, { message: 'Must have at most 500 permissions' })),
      ),
    response: ({ z }: Kit) => z.array(z.strictObject({ environmentUuid: z.uuid(), botUuid: z.optional(z.uuid()) })),
    read: (user: Shown) =>
      user.permissions.map((p) => (p.botUuid ? { environmentUuid: p.environmentUuid, botUuid: p.botUuid } : { environmentUuid: p.environmentUuid })),
  },
  status: { response: ({ z }: Kit) => z.enum(['ACTIVE', 'DELETED']) },
  createdAt: { response: ({ dateTime }: Kit) => dateTime },
  /**
   * The organization's OpenID provider the user signs in at (its alias), since the broker linked them,
   * and the provider's `sub` for the user: once recorded, only that `sub` signs the user in there,
   * until an ADMIN removes the link. A link without `subject` (made before subjects were recorded)
   * binds nothing: the next sign-in there is a first link.
   */
  identityProvider: {
    response: ({ z, dateTime }: Kit) =>
      z.optional(
        z
          .strictObject({
            alias: z.string(),
            linkedAt: dateTime,
            subject: z.optional(z.string().check(z.describe("The provider's `sub` for the user: only that account of the provider signs the user in"))),
          })
          .check(
            z.describe(
              "The organization's OpenID provider the user signs in at (docs/api/identity-providers.md), once linked at a first sign-in there; absent otherwise. An ADMIN removes it with DELETE …/users/{userId}/identity-provider-link",
            ),
          ),
      ),
    read: ({ identityProvider: link }: Shown) =>
      link && { alias: link.alias, linkedAt: link.linkedAt, ...(link.subject === undefined ? {} : { subject: link.subject }) },
  },
  /** The identifier a provisioning client (a SCIM directory) gave the user, kept as it sent it. */
  externalId: { record: ({ z }: Kit) => z.optional(z.string()), keptWhenLeftOut: true as const },
};

/** The fields of a user record the declaration gives. */
export type UserFieldsRecord = StoredOf<typeof userFields>;

type KeptWhenLeftOut = { [K in keyof typeof userFields]: (typeof userFields)[K] extends { keptWhenLeftOut: true } ? K : never }[keyof typeof userFields];

/** The optional texts a write keeps when a body leaves them out and clears on `null` or blank. */
export const keptWhenLeftOut = namesWhere(userFields, (field) => 'keptWhenLeftOut' in field) as KeptWhenLeftOut[];

/**
 * What a user read shows and a body may send back unchanged: accepted and ignored (in the order the
 * update body has always listed them).
 */
export const acceptedBack = ['uuid', 'orgUUID', 'createdAt', 'status'] as const;
