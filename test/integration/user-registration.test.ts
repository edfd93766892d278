import { AdminGetUserCommand } from '@aws-sdk/client-cognito-identity-provider';
import { cognitoClient } from '../../shared/adapters/clients/cognito';
import { config } from '../../shared/kernel/config';
import { cognitoIdentityProvider, type IdentityProvider } from '../../shared/adapters/identity/identity-provider';
import { keys } from '../../shared/adapters/store/keys';
import { getItem, putItem } from '../../shared/adapters/store/table';
import { entryOf as listingEntryOf, sortKeyOf } from '../../shared/domain/users/user-index';
import { getUser, saveUser } from '../../shared/domain/users/user.repository';
import { getEmailClaim } from '../../shared/domain/users/user-email-claims.repository';
import { STALE_CLAIM_MS, registerUser, type NewUser } from '../../shared/app/users/user-registration';
import type { UserRecord } from '../../shared/domain/users/user.entities';
import { TEST_PASSWORD, passwordToken } from '../support/auth-helpers';
import { stack, unique } from '../support/stack';

// The registration protocol (docs/decisions/registration-claims-the-email-first.md), against the real store and Cognito emulator: claim the
// e-mail, register the credentials, then write the user, its index entries and the claim's completion
// in one transaction.

const org = () => stack().orgs[0]!;
const newUser = (email: string): NewUser => ({
  orgUuid: org().uuid,
  name: 'Reg Test',
  email,
  password: TEST_PASSWORD,
  role: 'VIEWER',
  permissions: [],
});

async function cognitoHas(username: string): Promise<boolean> {
  return cognitoClient()
    .send(new AdminGetUserCommand({ UserPoolId: config().userPoolId, Username: username }))
    .then(() => true)
    .catch(() => false);
}

test('when the identity provider fails, the store is as before and a retry succeeds', async () => {
  const email = `idp-down-${unique()}@example.com`;
  const failing: IdentityProvider = {
    ...cognitoIdentityProvider,
    createUser: async () => {
      throw new Error('identity provider unavailable');
    },
  };

  await expect(registerUser(newUser(email), failing)).rejects.toThrow('identity provider unavailable');

  expect(await getEmailClaim(org().uuid, email)).toBeUndefined();
  const user = await registerUser(newUser(email));
  expect(await getUser(org().uuid, user.uuid)).toMatchObject({ email, status: 'ACTIVE' });
  expect(await getEmailClaim(org().uuid, email)).toMatchObject({ userUuid: user.uuid, state: 'DONE' });
});

test('a crash after the identity provider step is repaired by the next attempt, which adopts the account', async () => {
  const email = `crashed-${unique()}@example.com`;
  const orphanUuid = crypto.randomUUID();
  // What a crashed attempt leaves: a stale pending claim and a Cognito account, but no user record.
  const claimedAt = new Date(Date.now() - STALE_CLAIM_MS - 1000).toISOString();
  await putItem({ ...keys.emailClaim(org().uuid, email), type: 'EMAIL', userUuid: orphanUuid, state: 'PENDING', claimedAt });
  await cognitoIdentityProvider.createUser({ username: orphanUuid, email, password: 'Old-Passw0rd' });

  const user = await registerUser(newUser(email));

  expect(user.uuid).toBe(orphanUuid);
  expect(await getEmailClaim(org().uuid, email)).toMatchObject({ userUuid: orphanUuid, state: 'DONE' });
  // The adopted account got this attempt's password: the user can sign in with it.
  const token = await passwordToken({ realm: org().name, email, password: TEST_PASSWORD });
  expect(token.access_token).toEqual(expect.any(String));
});

test('a fresh pending claim (another request in progress) is not taken over', async () => {
  const email = `in-progress-${unique()}@example.com`;
  await putItem({
    ...keys.emailClaim(org().uuid, email),
    type: 'EMAIL',
    userUuid: crypto.randomUUID(),
    state: 'PENDING',
    claimedAt: new Date().toISOString(),
  });

  await expect(registerUser(newUser(email))).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
});

test('concurrent registrations of one e-mail create exactly one user and one identity-provider account', async () => {
  const email = `race-${unique()}@example.com`;

  const results = await Promise.allSettled(Array.from({ length: 5 }, () => registerUser(newUser(email))));

  const created = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof registerUser>>> => r.status === 'fulfilled');
  expect(created).toHaveLength(1);
  for (const failure of results.filter((r) => r.status === 'rejected')) {
    expect((failure as PromiseRejectedResult).reason).toMatchObject({ code: 'EMAIL_TAKEN' });
  }
  const claim = await getEmailClaim(org().uuid, email);
  expect(claim).toMatchObject({ userUuid: created[0]!.value.uuid, state: 'DONE' });
  expect(await cognitoHas(created[0]!.value.uuid)).toBe(true);
});

test('an e-mail is unique in the organization without regard to case, but may exist in another', async () => {
  const email = `Case-${unique()}@Example.com`;
  await registerUser(newUser(email));

  await expect(registerUser(newUser(email.toLowerCase()))).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
  const elsewhere = await registerUser({ ...newUser(email), orgUuid: stack().orgs[1]!.uuid });
  expect(elsewhere.orgUuid).toBe(stack().orgs[1]!.uuid);
});

describe('a user and what derives from it are written in one transaction', () => {
  /** The user's entry in the by-name listing, if the index has one for the record `as`. */
  const entryOf = async (as: UserRecord, order: 'name' | 'email' = 'name') =>
    getItem<{ name: string; email: string; status: string }>({
      PK: keys.userListing(as.orgUuid, as.status, order),
      SK: sortKeyOf(order, listingEntryOf(as)),
    });

  test('a registration writes the user, its directory entry and its completed claim together', async () => {
    const email = `tx-${unique()}@example.com`;
    const user = await registerUser(newUser(email));
    expect(await entryOf(user)).toMatchObject({ name: 'Reg Test', email, status: 'ACTIVE' });
    expect(await getEmailClaim(org().uuid, email)).toMatchObject({ userUuid: user.uuid, state: 'DONE' });
  });

  test('a stale write changes neither the user nor its directory entry', async () => {
    const user = await registerUser(newUser(`tx-stale-${unique()}@example.com`));
    const renamed = { ...user, name: 'Renamed', updatedAt: new Date(Date.now() + 1000).toISOString() };
    expect(await saveUser(renamed, user)).toBe(true);

    const stale = { ...user, name: 'Lost Update', updatedAt: new Date(Date.now() + 2000).toISOString() };
    expect(await saveUser(stale, user)).toBe(false);
    expect((await getUser(org().uuid, user.uuid))?.name).toBe('Renamed');
    expect((await entryOf(renamed))?.name).toBe('Renamed');
    expect(await entryOf(user)).toBeUndefined();
    expect(await entryOf(stale)).toBeUndefined();
  });

  test('a new e-mail whose claim was taken over meanwhile writes nothing and answers EMAIL_TAKEN', async () => {
    const user = await registerUser(newUser(`tx-claim-${unique()}@example.com`));
    const wanted = `tx-wanted-${unique()}@example.com`;
    await putItem({ ...keys.emailClaim(org().uuid, wanted), type: 'EMAIL', userUuid: 'someone-else', state: 'PENDING', claimedAt: new Date().toISOString() });
    const moved = { ...user, email: wanted, updatedAt: new Date(Date.now() + 1000).toISOString() };

    await expect(saveUser(moved, user, { claimedEmail: wanted })).rejects.toMatchObject({ code: 'EMAIL_TAKEN' });
    expect((await getUser(org().uuid, user.uuid))?.email).toBe(user.email);
    expect((await entryOf(user, 'email'))?.email).toBe(user.email);
    expect(await entryOf(moved, 'email')).toBeUndefined();
  });
});
