import { keys } from '../../shared/adapters/store/keys';
import { deleteItem, updateItem } from '../../shared/adapters/store/table';
import { TEST_PASSWORD } from '../support/auth-helpers';
import { freshOrganization, member, signIn, uniqueEmail, type TestOrg } from '../support/user-helpers';

/**
 * Refusals that must not tell an unknown e-mail from a locked user or a wrong password by their time:
 * each does the same reads and writes and one password check (shared/app/auth/sign-in.ts).
 *
 * Measured on a 2-core machine under other test runs (load average 10 to 16), 60 pairs of least-of-3:
 * - before refusals did the same work (a locked user's refusal read the failure record, which an
 *   unknown e-mail's did not; a wrong password also wrote it): the locked user slower in 59 and 60
 *   pairs of 60, by 2.0 and 2.7 ms (medians 6.7 against 4.6 ms, 10.1 against 7.1); the wrong
 *   password slower in 59 and 60 of 60, by 8.3 and 6.9 ms. One request a time, without the least of
 *   three, on the idle machine: the locked user slower in 54 of 60 pairs (9.9 against 7.5 ms), the wrong
 *   password in 60 of 60 (11.9 against 6.5 ms).
 * - since: either slower in 20 to 37 pairs of 60, the medians of the differences between -4.3 and 3.0
 *   ms with medians of 20 to 38 ms (the load's noise).
 * So a difference fails the test only when it is both consistent (one kind slower in more than 48 of
 * 60 pairs, which chance alone makes about once in 100,000 runs) and large (1 ms, or a tenth of the
 * faster median).
 */

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

const PAIRS = 60;

/** Milliseconds from sending a refused password grant to having read its whole answer. */
async function refusalTime(email: string, password: string): Promise<number> {
  const started = performance.now();
  const response = await signIn(org.realm, email, password);
  const body = (await response.json()) as { error_description?: string };
  const elapsed = performance.now() - started;
  expect(body.error_description).toBe('Invalid user credentials');
  return elapsed;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
};

const REPEATS = 3;

/**
 * Times `PAIRS` pairs, one request after the other. Each time is the least of `REPEATS` requests of
 * its kind, taken in turns with the other kind's (A B A B A B, then B A B A B A in the next pair), so
 * that the machine's other work, which only ever adds time, weighs on both kinds alike. `prepare` runs
 * before each request, outside the timing.
 */
async function interleavedPairs(first: () => Promise<number>, second: () => Promise<number>, prepare = async () => {}) {
  const a: number[] = [];
  const b: number[] = [];
  // A few untimed rounds first, so that neither kind pays for warming the function up.
  for (let i = 0; i < 3; i++) {
    await prepare();
    await first();
    await second();
  }
  for (let i = 0; i < PAIRS; i++) {
    const times: [number[], number[]] = [[], []];
    for (let r = 0; r < REPEATS * 2; r++) {
      const kind = (r + i) % 2;
      await prepare();
      times[kind]!.push(await (kind === 0 ? first : second)());
    }
    a.push(Math.min(...times[0]));
    b.push(Math.min(...times[1]));
  }
  const slower = a.filter((time, i) => time > b[i]!).length;
  const pairedDifference = median(a.map((time, i) => time - b[i]!));
  return { medianA: median(a), medianB: median(b), slower, pairedDifference };
}

/** 'same time', or the difference found, when it is both consistent and large (see above). */
function verdict({ medianA, medianB, slower, pairedDifference }: Awaited<ReturnType<typeof interleavedPairs>>): string {
  const consistent = slower > 48 || slower < PAIRS - 48;
  const large = Math.abs(pairedDifference) >= Math.max(1, Math.min(medianA, medianB) / 10);
  return consistent && large
    ? `slower in ${slower} of ${PAIRS} pairs, by ${pairedDifference.toFixed(1)} ms (medians ${medianA.toFixed(1)} and ${medianB.toFixed(1)} ms)`
    : 'same time';
}

describe('refusals take as long whoever is refused', () => {
  test('a locked user and an unknown e-mail', async () => {
    const locked = await member(org, 'VIEWER');
    for (let i = 0; i < 5; i++) await signIn(org.realm, locked.email, `Wrong-${i}-password`);
    // Locked for longer than the test runs, so that the right password is refused throughout.
    await updateItem({
      Key: keys.loginFailure(locked.uuid),
      UpdateExpression: 'SET notBefore = :later',
      ExpressionAttributeValues: { ':later': Math.floor(Date.now() / 1000) + 900 },
    });

    const timing = await interleavedPairs(
      () => refusalTime(locked.email, TEST_PASSWORD),
      () => refusalTime(uniqueEmail('nobody'), TEST_PASSWORD),
    );

    expect(verdict(timing)).toBe('same time');
  }, 300_000);

  test('a wrong password and an unknown e-mail', async () => {
    const user = await member(org, 'VIEWER');

    const timing = await interleavedPairs(
      () => refusalTime(user.email, 'Wrong-passw0rd'),
      () => refusalTime(uniqueEmail('nobody'), 'Wrong-passw0rd'),
      // Each wrong password is the user's first failure: no lock ever starts.
      async () => void (await deleteItem({ Key: keys.loginFailure(user.uuid) })),
    );

    expect(verdict(timing)).toBe('same time');
  }, 300_000);
});
