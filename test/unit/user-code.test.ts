import { displayUserCode, newUserCode, normalizeUserCode, USER_CODE_ALPHABET } from '../../shared/domain/sessions/user-code';

describe('user codes of the device authorization grant', () => {
  test('are 8 letters of the 20 consonants RFC 8628 §6.1 suggests, each of them drawn', () => {
    const codes = Array.from({ length: 500 }, newUserCode);

    expect(USER_CODE_ALPHABET).toBe('BCDFGHJKLMNPQRSTVWXZ');
    for (const code of codes) expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    expect(new Set(codes.join(''))).toEqual(new Set(USER_CODE_ALPHABET));
    expect(new Set(codes).size).toBe(codes.length);
  });

  test('are shown as XXXX-XXXX', () => {
    expect(displayUserCode('WDJBMJHT')).toBe('WDJB-MJHT');
  });

  test.each([
    ['WDJB-MJHT', 'WDJBMJHT'],
    ['wdjb-mjht', 'WDJBMJHT'],
    ['wdjbmjht', 'WDJBMJHT'],
    [' WDJB MJHT ', 'WDJBMJHT'],
    ['W-D-J-B-M-J-H-T', 'WDJBMJHT'],
  ])('read without regard to case, dashes or spaces: %j', (typed, code) => {
    expect(normalizeUserCode(typed)).toBe(code);
  });

  test.each([['WDJB-MJH'], ['WDJB-MJHTX'], ['AEIO-UYWD'], ['WDJB-MJH1'], ['WDJB_MJHT'], [`WDJBMJHT${' '.repeat(40)}`], ['']])('refused when they cannot be a code: %j', (typed) => {
    expect(normalizeUserCode(typed)).toBeUndefined();
  });
});
