import { passwordProblem } from '../../shared/adapters/identity/password-policy';

// Spec, bulk-create rule 3: at least 6 characters, one upper-case, one lower-case, one digit or special character.
describe('default password policy', () => {
  test.each([
    ['six characters with a digit', 'Abcde1'],
    ['a special character instead of a digit', 'Abcde!'],
    ['a digit and a special character', 'Passw0rd!'],
    ['a space as the special character', 'Abc de'],
    ['non-ASCII letters', 'Ñandú7'],
    ['the longest the identity provider takes', `Aa1${'x'.repeat(253)}`],
  ])('accepts %s', (_label, password) => {
    expect(passwordProblem(password)).toBeUndefined();
  });

  test.each([
    ['five characters', 'Abcd1', /6 characters/],
    ['an empty password', '', /6 characters/],
    ['no upper-case letter', 'abcdef1', /upper-case/],
    ['no lower-case letter', 'ABCDEF1', /lower-case/],
    ['only letters', 'Abcdefgh', /digit or a special/],
    ['no letter at all', '123456!', /upper-case/],
    ['more than the identity provider takes', `Aa1${'x'.repeat(254)}`, /at most 256/],
  ])('refuses %s, saying why', (_label, password, reason) => {
    expect(passwordProblem(password)).toMatch(reason);
  });
});
