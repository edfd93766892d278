import { attemptCount, bruteForceStatusOf, lockSecondsAfter } from '../../shared/domain/sessions/brute-force';

describe("Keycloak's temporary lockout", () => {
  test.each([
    [0, 0],
    [4, 0],
    [5, 60],
    [9, 60],
    [10, 120],
    [14, 120],
    [70, 840],
    [75, 900],
    [500, 900],
  ])('%i consecutive failures lock for %i s', (failures, seconds) => {
    expect(lockSecondsAfter(failures)).toBe(seconds);
  });

  const now = Date.parse('2026-11-22T12:00:00Z');

  test('a user with no failures is not locked', () => {
    expect(bruteForceStatusOf(undefined, now)).toEqual({ disabled: false, numFailures: 0, lastFailure: 0, lockedUntil: null });
  });

  test('a lock in force shows when it ends', () => {
    const status = bruteForceStatusOf({ numFailures: 5, lastFailure: now - 1_000, notBefore: now / 1000 + 59 }, now);
    expect(status).toEqual({ disabled: true, numFailures: 5, lastFailure: now - 1_000, lockedUntil: '2026-11-22T12:00:59.000Z' });
  });

  test('failures older than the reset time no longer count', () => {
    const status = bruteForceStatusOf({ numFailures: 7, lastFailure: now - 12 * 3600_000 - 1, notBefore: 0 }, now);
    expect(status).toEqual({ disabled: false, numFailures: 0, lastFailure: 0, lockedUntil: null });
  });

  describe('an attempt is counted before its password is checked', () => {
    const fresh = (numFailures: number) => ({ numFailures, lastFailure: now - 1_000, notBefore: 0 });

    test('the first ones, which cannot lock, are added together', () => {
      expect(attemptCount(undefined, now)).toEqual({ kind: 'add' });
      expect(attemptCount(fresh(3), now)).toEqual({ kind: 'add' });
    });

    test('the one that can lock replaces the record it read, its lock starting now', () => {
      expect(attemptCount(fresh(4), now)).toEqual({
        kind: 'replace',
        expected: fresh(4),
        next: { numFailures: 5, lastFailure: now, notBefore: now / 1000 + 60 },
      });
      expect(attemptCount(fresh(9), now)).toMatchObject({ next: { numFailures: 10, notBefore: now / 1000 + 120 } });
    });

    test('after failures too old to count, a new series starts at one', () => {
      const old = { numFailures: 7, lastFailure: now - 12 * 3600_000 - 1, notBefore: 0 };
      expect(attemptCount(old, now)).toEqual({ kind: 'replace', expected: old, next: { numFailures: 1, lastFailure: now, notBefore: 0 } });
    });
  });
});
