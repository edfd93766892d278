import { randomInt } from 'node:crypto';

/**
 * The user code of a device authorization (RFC 8628 §6.1): 8 letters of the 20 consonants that spell no
 * word and are not mistaken for one another (`BCDFGHJKLMNPQRSTVWXZ`), 20^8 (about 34 bits) of them,
 * shown as `XXXX-XXXX` and read without regard to case, dashes or spaces.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
/** Longest text read as a user code: a code with its dash and some spaces, far below a page's worth. */
export const MAX_USER_CODE_INPUT = 32;

const LETTERS = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** A new user code, in its stored form (8 upper-case letters, no dash). */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** The code as a person reads it: `WDJB-MJHT`. */
export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/** What a person typed, in the stored form; undefined when it cannot be a user code at all. */
export function normalizeUserCode(typed: string | undefined): string | undefined {
  if (typed === undefined || typed.length > MAX_USER_CODE_INPUT) return undefined;
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  return LETTERS.test(code) ? code : undefined;
}
