import { lockSecondsAfter } from '../../shared/domain/sessions/brute-force';
import { checkPassword, ExpiredTemporaryPassword } from '../../shared/app/auth/sign-in';
import { OAuthError } from '../../shared/app/auth/oauth-errors';
import { cognitoIdentityProvider, type IdentityProvider } from '../../shared/adapters/identity/identity-provider';
import { keys } from '../../shared/adapters/store/keys';
import { updateItem } from '../../shared/adapters/store/table';
import { expectError } from '../support/error-body';
import { csvOf, rowFor, uploadCsv } from '../support/bulk-helpers';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { userArea } from '../support/stack';
import { createBody, createViaApi, freshOrganization, member, notFullySetUpFor, onlyMailTo, signIn, uniqueEmail, type TestOrg } from '../support/user-helpers';

/** Keycloak's brute-force protection and temporary passwords, through the token endpoint and the users API. */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

interface BruteForceStatus {
  disabled: boolean;
  numFailures: number;
  lastFailure: number;
  lockedUntil: string | null;
}

async function oauthAnswer(response: Response) {
  return { status: response.status, body: (await response.json()) as { error: string; error_description: string } };
}

const invalidCredentials = { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } };

async function failTimes(email: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    expect(await oauthAnswer(await signIn(org.realm, email, `Wrong-${i}-password`))).toEqual(invalidCredentials);
  }
}

const lockUrl = (userUuid: string) => userArea(org.orgUuid, `/attack-detection/brute-force/users/${userUuid}`);
async function lockOf(userUuid: string): Promise<BruteForceStatus> {
  const response = await org.admin.api.get<BruteForceStatus>(lockUrl(userUuid));
  expect(response.status).toBe(200);
  return response.body;
}

describe('brute-force protection', () => {
  test('five failures lock the user: the right password then gets the same answer as a wrong one', async () => {
    const user = await member(org, 'VIEWER');
    await failTimes(user.email, 5);

    const started = Date.now();
    expect(await oauthAnswer(await signIn(org.realm, user.email, TEST_PASSWORD))).toEqual(invalidCredentials);
    const lock = await lockOf(user.uuid);
    expect(lock).toEqual({ disabled: true, numFailures: 5, lastFailure: expect.any(Number), lockedUntil: expect.any(String) });
    const lockedFor = Date.parse(lock.lockedUntil!) - started;
    // One wait increment (60 s) from the fifth failure, to the second.
    expect(lockedFor).toBeGreaterThan(50_000);
    expect(lockedFor).toBeLessThanOrEqual(61_000);
  });

  test('fewer failures do not lock, and a success resets the count', async () => {
    const user = await member(org, 'VIEWER');
    await failTimes(user.email, 4);
    expect((await lockOf(user.uuid)).numFailures).toBe(4);

    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(200);
    expect(await lockOf(user.uuid)).toEqual({ disabled: false, numFailures: 0, lastFailure: 0, lockedUntil: null });

    await failTimes(user.email, 4);
    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(200);
  });

  test('an ADMIN clears the lock, and the user signs in at once', async () => {
    const user = await member(org, 'VIEWER');
    await failTimes(user.email, 5);
    expect((await lockOf(user.uuid)).disabled).toBe(true);

    const cleared = await org.admin.api.delete(lockUrl(user.uuid));

    expect(cleared.status).toBe(204);
    expect(await lockOf(user.uuid)).toMatchObject({ disabled: false, numFailures: 0 });
    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(200);
  });

  test('the lock ends by itself once its time has passed', async () => {
    const user = await member(org, 'VIEWER');
    await failTimes(user.email, 5);
    // Move the lock's end into the past, as a minute's wait would.
    await updateItem({
      Key: keys.loginFailure(user.uuid),
      UpdateExpression: 'SET notBefore = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
    });

    expect(await lockOf(user.uuid)).toMatchObject({ disabled: false, numFailures: 5, lockedUntil: null });
    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(200);
  });

  test('failures sent together are all counted, and the lock grows with them', async () => {
    const user = await member(org, 'VIEWER');
    const wrongTogether = (count: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => signIn(org.realm, user.email, `Wrong-${i}-password`).then(oauthAnswer)));

    // Below the threshold nothing is refused before the password check: every failure must count.
    expect((await wrongTogether(4)).every((answer) => answer.body.error === 'invalid_grant')).toBe(true);
    expect((await lockOf(user.uuid)).numFailures).toBe(4);

    // Past it, requests that arrive once the lock is written are refused without counting.
    const started = Date.now();
    expect((await wrongTogether(6)).every((answer) => answer.body.error === 'invalid_grant')).toBe(true);
    const lock = await lockOf(user.uuid);
    expect(lock.numFailures).toBeGreaterThanOrEqual(5);
    expect(lock.numFailures).toBeLessThanOrEqual(10);
    expect(lock.disabled).toBe(true);
    const lockedFor = Date.parse(lock.lockedUntil!) - started;
    expect(lockedFor).toBeGreaterThan(lockSecondsAfter(lock.numFailures) * 1000 - 10_000);
    expect(lockedFor).toBeLessThanOrEqual(lockSecondsAfter(lock.numFailures) * 1000 + 1_000);
  });

  test('twenty wrong passwords sent together check five: the fifth locks before the rest are checked', async () => {
    const user = await member(org, 'VIEWER');

    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(org.realm, user.email, `Wrong-${i}-password`).then(oauthAnswer)));

    expect(answers).toEqual(Array.from({ length: 20 }, () => invalidCredentials));
    // Every attempt let through to its password check is counted before it; the others were refused unchecked.
    const lock = await lockOf(user.uuid);
    expect(lock).toMatchObject({ disabled: true, numFailures: 5 });
    // The right password, right after, is refused as the locked user's.
    expect(await oauthAnswer(await signIn(org.realm, user.email, TEST_PASSWORD))).toEqual(invalidCredentials);
    expect(await lockOf(user.uuid)).toEqual(lock);
  });

  test("a user's own sign-ins sent together with the right password all go through: one that finds the lock an attempt in flight started waits for that attempt's answer", async () => {
    const user = await member(org, 'VIEWER');

    const answers = await Promise.all(Array.from({ length: 12 }, () => signIn(org.realm, user.email, TEST_PASSWORD)));

    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(await lockOf(user.uuid)).toMatchObject({ disabled: false, numFailures: 0 });
  });

  test('a right password sent with wrong ones either comes before the lock and clears the count, or is refused unchecked', async () => {
    const user = await member(org, 'VIEWER');
    await failTimes(user.email, 3);

    const [right, ...wrong] = await Promise.all([
      signIn(org.realm, user.email, TEST_PASSWORD),
      ...Array.from({ length: 9 }, (_, i) => signIn(org.realm, user.email, `Wrong-${i}-password`).then(oauthAnswer)),
    ]);

    expect(wrong).toEqual(wrong.map(() => invalidCredentials));
    const lock = await lockOf(user.uuid);
    // At most two more passwords checked before the fifth failure locked: never more than five failures.
    expect(lock.numFailures).toBeLessThanOrEqual(5);
    if (right.status === 200) return;
    expect(await oauthAnswer(right)).toEqual(invalidCredentials);
    expect(lock).toMatchObject({ disabled: true, numFailures: 5 });
  });

  test.each(['expired', 'throttled'] as const)('a check that says nothing of the password (%s) is taken back: not counted, no lock', async (answer) => {
    const user = await member(org, 'VIEWER');
    await failTimes(user.email, 4);
    // Cognito's answers for an expired temporary password and for its own lockout, which the local
    // stack's emulator never gives: the adapter's answer stands in for them.
    const answering: IdentityProvider = { ...cognitoIdentityProvider, verifyPassword: async () => answer };

    await expect(checkPassword(org.realm, user.email, 'Wrong-passw0rd', answering)).rejects.toThrow(
      answer === 'expired' ? ExpiredTemporaryPassword : OAuthError,
    );

    expect(await lockOf(user.uuid)).toMatchObject({ disabled: false, numFailures: 4 });
    expect((await signIn(org.realm, user.email, TEST_PASSWORD)).status).toBe(200);
  });

  test('only an ADMIN of the organization sees or clears a lock', async () => {
    const user = await member(org, 'VIEWER');
    const supervisor = await member(org, 'SUPERVISOR');
    const other = await freshOrganization();

    expectError(await supervisor.api.get(lockUrl(user.uuid)), 403, 'FORBIDDEN');
    expectError(await supervisor.api.delete(lockUrl(user.uuid)), 403, 'FORBIDDEN');
    expect((await other.admin.api.get(lockUrl(user.uuid))).status).toBe(404);
    expectError(await org.admin.api.get(lockUrl('00000000-0000-4000-8000-000000000000')), 404, 'NOT_FOUND');
  });
});

describe('temporary passwords', () => {
  const temporaryPasswordIn = (text: string) => text.match(/^Temporary password: (.+)$/m)?.[1];

  test('a generated password only says the account is not fully set up; a wrong one stays invalid', async () => {
    const created = await createViaApi(org, { email: uniqueEmail('temp'), password: undefined, confirmPassword: undefined });
    const mail = await onlyMailTo(created.email);
    const temporary = temporaryPasswordIn(mail.body.text ?? '');
    expect(temporary).toBeDefined();
    expect(mail.body.text).toContain('This password is temporary');

    expect(await oauthAnswer(await signIn(org.realm, created.email, temporary!))).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: notFullySetUpFor(org.realm) },
    });
    expect(await oauthAnswer(await signIn(org.realm, created.email, 'Wrong-passw0rd'))).toEqual(invalidCredentials);
  });

  test('a password the ADMIN sets is permanent, on create and on update', async () => {
    const withPassword = await createViaApi(org, { email: uniqueEmail('set') });
    expect((await signIn(org.realm, withPassword.email, TEST_PASSWORD)).status).toBe(200);
    const mail = await onlyMailTo(withPassword.email);
    expect(mail.body.text).toMatch(/^Password: /m);

    const generated = await createViaApi(org, { email: uniqueEmail('reset'), password: undefined, confirmPassword: undefined });
    const updated = await org.admin.api.put(
      org.url(`/${generated.uuid}`),
      createBody(org, { email: generated.email, password: 'Chosen-By-Admin1', confirmPassword: 'Chosen-By-Admin1' }),
    );
    expect(updated.status).toBe(200);
    expect((await signIn(org.realm, generated.email, 'Chosen-By-Admin1')).status).toBe(200);
  });

  test("bulk rows without a Password get a temporary one; the file's passwords are permanent", async () => {
    const temporaryEmail = uniqueEmail('bulk-temp');
    const permanentEmail = uniqueEmail('bulk-set');
    const csv = csvOf([
      rowFor(org, 'VIEWER', temporaryEmail, { Password: '' }),
      rowFor(org, 'VIEWER', permanentEmail, { Password: 'File-Passw0rd' }),
    ]);

    const response = await uploadCsv(org, csv);

    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    const temporary = temporaryPasswordIn((await onlyMailTo(temporaryEmail)).body.text ?? '');
    expect((await oauthAnswer(await signIn(org.realm, temporaryEmail, temporary!))).body.error_description).toBe(notFullySetUpFor(org.realm));
    expect((await signIn(org.realm, permanentEmail, 'File-Passw0rd')).status).toBe(200);
  });
});
