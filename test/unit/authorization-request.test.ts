import {
  checkMaxAge,
  checkParameters,
  checkPkce,
  checkPrompt,
  checkRequestObject,
  checkResponseMode,
  checkResponseType,
  checkScope,
  firstRefusal,
  MAX_PARAM,
  parseAuthorization,
  REQUEST_CHECKS,
  responseModeOf,
} from '../../shared/app/sign-in/authorization-request';

/** The authorization request's one reader and its declared checks, each alone. */

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const good = { response_type: 'code', code_challenge: CHALLENGE, code_challenge_method: 'S256', scope: 'openid offline_access', state: 's', prompt: 'login', max_age: '60' };
const parse = (fields: Record<string, string> | string) => parseAuthorization(typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(), 'acme');

describe('the one reader of an authorization request', () => {
  test('reads each parameter sent once', () => {
    const parsed = parse(good);
    expect(parsed.malformed).toBeUndefined();
    expect(parsed.values.get('scope')).toBe('openid offline_access');
  });

  test('a repeated parameter is read as neither of its values and makes the request malformed', () => {
    const parsed = parse('response_type=code&state=a&state=b');
    expect(parsed.values.has('state')).toBe(false);
    expect(parsed.malformed).toBe('Parameter state is repeated: send it once');
  });

  test('a parameter past its bound makes the request malformed, naming the bound; a value at it does not', () => {
    expect(parse({ state: 'x'.repeat(MAX_PARAM.state) }).malformed).toBeUndefined();
    expect(parse({ state: 'x'.repeat(MAX_PARAM.state + 1) }).malformed).toBe(`Parameter state is longer than ${MAX_PARAM.state} characters`);
    expect(parse({ nonce: 'n'.repeat(MAX_PARAM.nonce + 1) }).malformed).toBe(`Parameter nonce is longer than ${MAX_PARAM.nonce} characters`);
  });

  test('the first malformed parameter is the one named', () => {
    expect(parse('nonce=a&nonce=b&state=c&state=d').malformed).toBe('Parameter nonce is repeated: send it once');
  });

  test('the response mode of a refusal: fragment only when asked for, once', () => {
    expect(responseModeOf(parse({ response_mode: 'fragment' }))).toBe('fragment');
    expect(responseModeOf(parse('response_mode=fragment&response_mode=fragment'))).toBe('query');
    expect(responseModeOf(parse({ response_mode: 'form_post' }))).toBe('query');
  });
});

describe('each check alone', () => {
  test.each([
    ['checkParameters', checkParameters, 'state=a&state=b', 'invalid_request'],
    ['checkResponseType', checkResponseType, 'response_type=token', 'unsupported_response_type'],
    ['checkPkce (missing)', checkPkce, 'code_challenge_method=S256', 'invalid_request'],
    ['checkPkce (plain)', checkPkce, `code_challenge=${CHALLENGE}&code_challenge_method=plain`, 'invalid_request'],
    ['checkPkce (not a digest)', checkPkce, 'code_challenge=short&code_challenge_method=S256', 'invalid_request'],
    ['checkScope', checkScope, 'scope=openid%20admin', 'invalid_scope'],
    ['checkResponseMode', checkResponseMode, 'response_mode=form_post', 'invalid_request'],
    ['checkRequestObject', checkRequestObject, 'request=eyJ', 'request_not_supported'],
    ['checkPrompt (unknown)', checkPrompt, 'prompt=create', 'invalid_request'],
    ['checkPrompt (none with another)', checkPrompt, 'prompt=none%20login', 'invalid_request'],
    ['checkMaxAge', checkMaxAge, 'max_age=-1', 'invalid_request'],
  ])('%s refuses with %s', (_name, check, query, error) => {
    const refusal = check(parse(query));
    expect(refusal?.error).toBe(error);
    // Every refusal says what to send instead.
    expect(refusal!.description.length).toBeGreaterThan(20);
  });

  test('a well-formed request passes every check', () => {
    expect(firstRefusal(REQUEST_CHECKS, parse(good))).toBeUndefined();
  });

  test('the checks run in their declared order: a repeated parameter is named before an unsupported response type', () => {
    expect(firstRefusal(REQUEST_CHECKS, parse('response_type=token&scope=a&scope=b'))).toEqual({ error: 'invalid_request', description: 'Parameter scope is repeated: send it once' });
  });
});
