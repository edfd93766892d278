import { randomUUID } from 'node:crypto';
import { ConflictError } from '../../kernel/errors';
import { userPorts, type IdentityProvider } from './identity-provider.port';
import { userAuditWrites } from '../../domain/users/user-audit.repository';
import type { Permission, Role, UserRecord } from '../../domain/users/user.entities';
import { keptWhenLeftOut } from '../../domain/users/user.fields';
import { getUser, putNewUser, putNewUsers, reindexStoredUser, sameEmail } from '../../domain/users/user.repository';
import { claimEmail, claimEmails, completeClaim, getEmailClaim, releaseClaim, takeOverClaim } from '../../domain/users/user-email-claims.repository';

/** EMAIL_TAKEN by a user that was deleted (logically): the user comes back through reactivation. */
export const DELETED_USER_HAS_EMAIL =
  'The e-mail belongs to a deleted user of this organization: reactivate that user with PUT /users/activate (its e-mail in the body) instead of creating a new one';

/** A pending e-mail claim older than this, whose user never appeared, is taken over by the next attempt. */
export const STALE_CLAIM_MS = 60_000;

/** A new user's fields; the optional texts (`keptWhenLeftOut` of `user.fields.ts`) when it has them. */
export interface NewUser extends Partial<Pick<UserRecord, (typeof keptWhenLeftOut)[number]>> {
  orgUuid: string;
  name: string;
  email: string;
  password: string;
  /** A generated password, e-mailed to the user, who must replace it before signing in. */
  temporaryPassword?: boolean;
  role: Role;
  permissions: Permission[];
}

/**
 * Registers a user in the store and the identity provider: claim the e-mail, register the credentials,
 * then write the user, its index entries, the claim's completion and the USER_CREATED audit event
 * (with `/password` redacted when the password was chosen, not generated) in one transaction (the identity
 * provider cannot join a transaction, hence the claim before it). A failure before the user is written
 * gives the claim back; a crash leaves a pending claim that a later attempt detects and repairs.
 * `options.uuid` fixes the user's uuid, so that a rerun of the same work (a bulk job) resumes it
 * instead of meeting its own e-mail claim.
 */
export async function registerUser(
  input: NewUser,
  identityProvider: IdentityProvider = userPorts().identityProvider,
  options: { uuid?: string } = {},
): Promise<UserRecord> {
  const { orgUuid } = input;
  const email = input.email.trim();
  const now = new Date().toISOString();
  const userUuid = await claimEmailFor(orgUuid, email, options.uuid ?? randomUUID(), now);

  try {
    await identityProvider.createUser({ username: userUuid, email, password: input.password, temporary: input.temporaryPassword });
  } catch (error) {
    await releaseClaim(orgUuid, email, userUuid);
    throw error;
  }

  return writeRegistered(newUserRecord(input, userUuid, email, now), input);
}

/** The record of a user registered now under `userUuid`. */
function newUserRecord(input: NewUser, userUuid: string, email: string, now: string): UserRecord {
  return {
    uuid: userUuid,
    orgUuid: input.orgUuid,
    name: input.name.trim(),
    email,
    ...Object.fromEntries(keptWhenLeftOut.flatMap((name) => (input[name] ? [[name, input[name]]] : []))),
    role: input.role,
    permissions: input.permissions,
    status: 'ACTIVE',
    createdAt: now,
    updatedAt: now,
  };
}

const createdAudit = (user: UserRecord, input: NewUser) => userAuditWrites('USER_CREATED', undefined, user, { passwordSet: !input.temporaryPassword });

/** Writes a user whose claim and credentials are in place, or finds it written by an earlier attempt and repairs what that attempt left. */
async function writeRegistered(user: UserRecord, input: NewUser): Promise<UserRecord> {
  const { orgUuid, uuid: userUuid, email } = user;
  if (!(await putNewUser(user, createdAudit(user, input)))) {
    // Only an attempt resuming its own claim (a given uuid) finds its user written already.
    const written = await getUser(orgUuid, userUuid);
    if (!written || !sameEmail(written.email, email)) throw new ConflictError({ code: 'EMAIL_TAKEN' });
    // Written by an earlier attempt: repair what it may have left undone (idempotent).
    await indexUser(written);
    await completeClaim(orgUuid, email, userUuid);
    return written;
  }
  return user;
}

/** A registration's outcome: the user, or what `registerUser` threw for it. */
export type Registration = { user: UserRecord } | { error: unknown };

/** At most this many e-mails are claimed in one transaction. */
const CLAIMS_AT_ONCE = 100;

/**
 * Registers new users of one organization, each with its uuid, exactly as `registerUser` registers
 * each, in fewer writes: their e-mails claimed together (one transaction per 100), each registered
 * with the identity provider (`beforeEach` awaited first: the caller's pacing), then the users written
 * several to a transaction (`putNewUsers`). Registrations meet other work rarely; when they do, a
 * claim that exists or a transaction that fails, the users concerned are registered one by one, as
 * `registerUser` does, so every outcome (EMAIL_TAKEN, a resumed attempt) is the same. A crash leaves
 * what `registerUser`'s leaves: pending claims, and accounts that a later attempt adopts.
 */
export async function registerUsers(
  inputs: readonly (NewUser & { uuid: string })[],
  identityProvider: IdentityProvider,
  options: { beforeEach?: (input: NewUser) => Promise<void> } = {},
): Promise<Registration[]> {
  const beforeEach = options.beforeEach ?? (async () => undefined);
  const alone = async (input: NewUser & { uuid: string }): Promise<Registration> => {
    try {
      await beforeEach(input);
      return { user: await registerUser(input, identityProvider, { uuid: input.uuid }) };
    } catch (error) {
      return { error };
    }
  };
  if (inputs.length > CLAIMS_AT_ONCE) {
    const parts = await Promise.all(Array.from({ length: Math.ceil(inputs.length / CLAIMS_AT_ONCE) }, (_, i) => registerUsers(inputs.slice(i * CLAIMS_AT_ONCE, (i + 1) * CLAIMS_AT_ONCE), identityProvider, options)));
    return parts.flat();
  }
  const [orgUuid, now] = [inputs[0]?.orgUuid ?? '', new Date().toISOString()];
  if (inputs.some((input) => input.orgUuid !== orgUuid)) throw new RangeError('registerUsers takes the users of one organization');
  const emails = inputs.map((input) => input.email.trim());
  if (!(await claimEmails(orgUuid, inputs.map((input, i) => ({ email: emails[i]!, userUuid: input.uuid })), now))) return Promise.all(inputs.map(alone));

  const outcomes: Registration[] = await Promise.all(
    inputs.map(async (input, i): Promise<Registration> => {
      const email = emails[i]!;
      try {
        await beforeEach(input);
        await identityProvider.createUser({ username: input.uuid, email, password: input.password, temporary: input.temporaryPassword });
      } catch (error) {
        await releaseClaim(orgUuid, email, input.uuid);
        return { error };
      }
      return { user: newUserRecord(input, input.uuid, email, now) };
    }),
  );
  const created = outcomes.flatMap((outcome, i) => ('user' in outcome ? [{ user: outcome.user, alongside: createdAudit(outcome.user, inputs[i]!) }] : []));
  const notWritten = new Set((await putNewUsers(created)).map((user) => user.uuid));
  return Promise.all(
    outcomes.map(async (outcome, i): Promise<Registration> => {
      if (!('user' in outcome) || !notWritten.has(outcome.user.uuid)) return outcome;
      try {
        return { user: await writeRegistered(outcome.user, inputs[i]!) };
      } catch (error) {
        return { error };
      }
    }),
  );
}

/**
 * Writes again what is derived from a user record: its index items and, for an active ADMIN, its
 * place in the organization's ADMIN set. Every write of a user does this in its own transaction; this
 * is the repair, for data an interrupted attempt or an older version left behind. Idempotent: it
 * rewrites the record as it reads it now (strongly consistent), and a change meanwhile wins.
 */
export async function indexUser(user: UserRecord): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const current = await getUser(user.orgUuid, user.uuid, { consistent: true });
    if (!current || (await reindexStoredUser(current))) return;
  }
}

/**
 * Claims an e-mail in an organization for `userUuid` and returns the uuid that holds the claim now:
 * `userUuid`, or the uuid of a crashed registration of the same e-mail whose claim was taken over (so
 * its identity-provider account is adopted). Throws EMAIL_TAKEN when a user has the e-mail.
 */
export async function claimEmailFor(
  orgUuid: string,
  email: string,
  userUuid: string,
  now: string,
  options: { adoptAbandoned: boolean } = { adoptAbandoned: true },
): Promise<string> {
  if (await claimEmail(orgUuid, email, userUuid, now)) return userUuid;
  const claim = await getEmailClaim(orgUuid, email);
  if (!claim) return claimEmailFor(orgUuid, email, userUuid, now, options); // Released meanwhile: try again.
  // An attempt with a given uuid (a bulk job's rerun) resumes its own claim, whatever its state.
  if (claim.userUuid === userUuid) return userUuid;
  const holder = await getUser(orgUuid, claim.userUuid);
  if (holder && sameEmail(holder.email, email)) {
    // The user was written but its claim may never have been marked done: finish that attempt's work.
    if (claim.state === 'PENDING') {
      await indexUser(holder);
      await completeClaim(orgUuid, email, claim.userUuid);
    }
    if (holder.status === 'DELETED') throw new ConflictError({ code: 'EMAIL_TAKEN', message: DELETED_USER_HAS_EMAIL });
    throw new ConflictError({ code: 'EMAIL_TAKEN' });
  }
  // No user has the e-mail: a registration or e-mail change in progress, or one that stopped halfway.
  const age = Date.now() - Date.parse(claim.claimedAt);
  if (claim.state === 'PENDING' && age < STALE_CLAIM_MS) {
    throw new ConflictError({ code: 'EMAIL_TAKEN', message: 'The e-mail is being registered by another request' });
  }
  // A crashed registration left no user: a new registration adopts its uuid (and identity-provider
  // account). A claim left behind by an existing user (an e-mail change that stopped halfway), or one
  // an existing user's e-mail change finds, is simply taken.
  const adopted = holder || !options.adoptAbandoned ? userUuid : claim.userUuid;
  if (!(await takeOverClaim(orgUuid, email, claim, adopted, now))) {
    throw new ConflictError({ code: 'EMAIL_TAKEN', message: 'The e-mail is being registered by another request' });
  }
  return adopted;
}
