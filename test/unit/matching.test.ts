import { compareText, fold, quickMatches } from '../../shared/kernel/text/matching';

describe('quickMatches (greedy, left to right, accents and case ignored)', () => {
  /** Per name, the terms that find it and those that do not. */
  const names: [name: string, finds: string[], missing: string[]][] = [
    ['John Doe', ['jdo', 'j d'], ['doj']],
    ['john doe', ['JOHN'], []],
    ['José Álvarez', ['jose'], []],
    ['Jose Alvarez', ['álv'], []],
    ['Anyone', [''], []],
    ['Jazz', ['zz'], ['zzz']],
    ['Reviewer', ['ee'], []],
    ['Sales assistant', ['sales', 'ssa'], ['tsa']],
  ];
  const cases = names.flatMap(([name, finds, missing]) => [
    ...finds.map((term) => [term, name, true] as const),
    ...missing.map((term) => [term, name, false] as const),
  ]);

  test.each(cases)('%j in %j → %s', (term, name, expected) => {
    expect(quickMatches(term, name)).toBe(expected);
  });
});

test('fold strips accents and case', () => {
  expect(fold('Ünïcödé ÉTÉ')).toBe('unicode ete');
});

test('compareText orders alphabetically without regard to case or accents', () => {
  expect(['beta', 'Alpha', 'ápex', 'agent 10', 'agent 9'].sort(compareText)).toEqual(['agent 9', 'agent 10', 'Alpha', 'ápex', 'beta']);
});
