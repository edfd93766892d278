import { bruteForceStatusOf, lockSecondsAfter } from '../../shared/domain/sessions/brute-force';

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
});
