import { compareText, fold, quickMatches } from '../../shared/kernel/text/matching';

describe('quickMatches (greedy, left to right, accents and case ignored)', () => {
  test.each([
    ['jdo', 'John Doe', true],
    ['doj', 'John Doe', false],
    ['JOHN', 'john doe', true],
    ['j d', 'John Doe', true],
    ['jose', 'José Álvarez', true],
    ['álv', 'Jose Alvarez', true],
    ['', 'Anyone', true],
    ['zz', 'Jazz', true],
    ['zzz', 'Jazz', false],
    ['ee', 'Reviewer', true],
    ['sales', 'Sales assistant', true],
    ['ssa', 'Sales assistant', true],
    ['tsa', 'Sales assistant', false],
  ])('%j in %j → %s', (term, name, expected) => {
    expect(quickMatches(term, name)).toBe(expected);
  });
});

test('fold strips accents and case', () => {
  expect(fold('Ünïcödé ÉTÉ')).toBe('unicode ete');
});

test('compareText orders alphabetically without regard to case or accents', () => {
  expect(['beta', 'Alpha', 'ápex', 'agent 10', 'agent 9'].sort(compareText)).toEqual(['agent 9', 'agent 10', 'Alpha', 'ápex', 'beta']);
});
