import { randomInt } from 'node:crypto';

/**
 * The default password policy (docs/api/bulk.md#bulk-create, rule 3): at least 6 characters, one upper-case and one
 * lower-case letter, and one digit or special character. Returns what is wrong, or undefined.
 */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 6) return 'The password must have at least 6 characters';
  if (password.length > 256) return 'The password must have at most 256 characters';
  if (!/\p{Lu}/u.test(password)) return 'The password must contain an upper-case letter';
  if (!/\p{Ll}/u.test(password)) return 'The password must contain a lower-case letter';
  if (!/[^\p{L}]/u.test(password)) return 'The password must contain a digit or a special character';
  return undefined;
}

/** How long a generated (temporary) password works: the Cognito pool's temporary-password validity. */
export const TEMPORARY_PASSWORD_DAYS = 7;

/** A password the welcome e-mail carries when the ADMIN set none: 16 characters meeting the policy. */
export function generatePassword(): string {
  const sets = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '!#%+-=?@'];
  const all = sets.join('');
  const chars = sets.map((set) => set[randomInt(set.length)]!);
  while (chars.length < 16) chars.push(all[randomInt(all.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
