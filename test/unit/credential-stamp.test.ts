import { emailDomainOf, outlivedCredentials, sessionOutlived } from '../../shared/domain/sessions/credential-stamp';
import { sessionStartMs } from '../../shared/domain/sessions/session.repository';

/** Which sessions a credential stamp ends: pure rules, no store. */

describe('a session against the credential stamps', () => {
  const stampedAt = 1_800_000_000_000;

  test('a session whose sign-in began at or before the user’s stamp is over; one begun after it is not', () => {
    expect(outlivedCredentials({ credentialsChangedAt: stampedAt }, stampedAt - 1)).toBe(true);
    expect(outlivedCredentials({ credentialsChangedAt: stampedAt }, stampedAt)).toBe(true);
    expect(outlivedCredentials({ credentialsChangedAt: stampedAt }, stampedAt + 1)).toBe(false);
    expect(outlivedCredentials({}, 0)).toBe(false);
  });

  test('a session that did not record its start counts from the second it was made, else its sign-in, else the epoch', () => {
    expect(sessionStartMs({ startedAtMs: 5, createdAt: 9, authTime: 7 })).toBe(5);
    expect(sessionStartMs({ createdAt: 9, authTime: 7 })).toBe(9000);
    expect(sessionStartMs({ authTime: 7 })).toBe(7000);
    expect(sessionStartMs({})).toBe(0);
  });

  test("a domain's stamp ends the sessions begun with a password (or not saying how), never those begun at the provider", () => {
    const domainStamp = { passwordsEndedAt: stampedAt };
    const before = stampedAt - 10;
    expect(sessionOutlived({ startedAtMs: before, signedInWith: 'password' }, {}, domainStamp)).toBe(true);
    expect(sessionOutlived({ startedAtMs: before }, {}, domainStamp)).toBe(true);
    expect(sessionOutlived({ startedAtMs: before, signedInWith: 'provider' }, {}, domainStamp)).toBe(false);
    expect(sessionOutlived({ startedAtMs: stampedAt + 1, signedInWith: 'password' }, {}, domainStamp)).toBe(false);
    // The user's own stamp ends a provider's session too (a disabled user).
    expect(sessionOutlived({ startedAtMs: before, signedInWith: 'provider' }, { credentialsChangedAt: stampedAt }, undefined)).toBe(true);
  });

  test("an e-mail's domain is what follows its last @, lower-cased", () => {
    expect(emailDomainOf('Ada@Corp.Example')).toBe('corp.example');
    expect(emailDomainOf('"a@b"@corp.example')).toBe('corp.example');
    expect(emailDomainOf('no-domain@')).toBeUndefined();
    expect(emailDomainOf('none')).toBeUndefined();
    expect(emailDomainOf(undefined)).toBeUndefined();
  });
});
