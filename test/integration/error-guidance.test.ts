import { bearer, createTestUser, decodeJwt, getCurrentUser, passwordToken, signWithStackKey } from '../support/auth-helpers';
import { csvOf, rowFor, uploadCsv, BULK_COLUMNS } from '../support/bulk-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { send } from '../support/http-client';
import { createBody, createViaApi, deleteViaApi, freshOrganization, mailsTo, onlyMailTo, type TestOrg } from '../support/user-helpers';

/**
 * Every refusal tells the reader what to do next: the media type to send, the CSV separator to use,
 * whether a token is missing, malformed or expired (and how to get a new one), where a temporary
 * password is replaced, that a deleted user's e-mail is reactivated rather than created again.
 */

let org: TestOrg;

beforeAll(async () => {
  org = await freshOrganization();
});

describe('415 names the media type the operation reads', () => {
  test('a JSON operation sent text/plain says to send application/json', async () => {
    const response = await send(org.url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${org.admin.token}`, 'content-type': 'text/plain' },
      body: JSON.stringify(createBody(org)),
    });

    const body = expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(body.message).toContain('Content-Type: application/json');
  });

  test('bulk-create sent as JSON says to send multipart/form-data with a part named file', async () => {
    const response = await send(org.url('/bulk-create'), {
      method: 'POST',
      headers: { authorization: `Bearer ${org.admin.token}`, 'content-type': 'application/json' },
      body: '[]',
    });

    const body = expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(body.message).toContain('multipart/form-data');
    expect(body.message).toContain('"file"');
  });
});

describe('a CSV header split by another separator says so', () => {
  const row = () => rowFor(org, 'VIEWER', `sep-${Date.now()}-${Math.random().toString(36).slice(2)}@example.test`);

  test.each([
    [';', 'semicolons'],
    ['\t', 'tabs'],
  ])('a header separated by %j names %s and how to save the file', async (separator, name) => {
    const csv = csvOf([row()]).replaceAll(',', separator);

    const response = await uploadCsv(org, csv);

    const body = expectError(response, 422, 'MISSING_COLUMNS');
    expect(body.message).toContain(name);
    expect(body.message).toContain('comma-separated');
    expect(body.message).not.toContain('lacks');
  });

  test('a header that truly lacks columns names them and where they go', async () => {
    const csv = csvOf([row()], { columns: BULK_COLUMNS.filter((column) => column !== 'Role') });

    const response = await uploadCsv(org, csv);

    const body = expectError(response, 422, 'MISSING_COLUMNS');
    expect(body.message).toMatch(/lacks the column Role: add it to the header row/);
  });
});

describe('401 tells a missing token from a malformed or an expired one', () => {
  const orgUuid = () => org.orgUuid;

  test('no Authorization header: a challenge without an error, and how to send a token', async () => {
    const response = await getCurrentUser(orgUuid());

    const body = expectError(response, 401, 'UNAUTHENTICATED');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(body.message).toContain('Authorization: Bearer');
  });

  test.each([
    ['garbage', 'Bearer garbage'],
    ['three garbage segments', 'Bearer aaa.bbb.ccc'],
  ])('a malformed token (%s) is not "required": it says the token is not an access token, with invalid_token', async (_, authorization) => {
    const response = await getCurrentUser(orgUuid(), { authorization });

    const body = expectError(response, 401, 'UNAUTHENTICATED');
    expect(body.message).not.toMatch(/required/);
    expect(body.message).toContain('not an access token');
    expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${body.message}"`);
  });

  test('another scheme says to use Bearer', async () => {
    const response = await getCurrentUser(orgUuid(), { authorization: 'Basic YWJjOmRlZg==' });

    const body = expectError(response, 401, 'UNAUTHENTICATED');
    expect(body.message).toContain('Bearer scheme');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="/);
  });

  test('an expired token says it expired and how to renew it', async () => {
    const user = await createTestUser();
    const claims = decodeJwt((await passwordToken(user)).access_token).payload;
    const now = Math.floor(Date.now() / 1000);
    const expired = await signWithStackKey({ ...claims, iat: now - 3600, exp: now - 600 });

    const response = await getCurrentUser(user.orgUuid, bearer(expired));

    const body = expectError(response, 401, 'UNAUTHENTICATED');
    expect(body.message).toContain('has expired');
    expect(body.message).toContain('refresh_token');
    expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${body.message}"`);
  });
});

describe('conflicts and rules that say what to do', () => {
  test("EMAIL_TAKEN by a deleted user says to reactivate it", async () => {
    const user = await createViaApi(org);
    await deleteViaApi(org, user.uuid);

    const response = await org.admin.api.post(org.url(), createBody(org, { email: user.email }));

    const body = expectError(response, 409, 'EMAIL_TAKEN');
    expect(body.message).toContain('reactivate');
    expect(body.message).toContain('/users/activate');
  });

  test('EMAIL_TAKEN by an active user does not suggest reactivation', async () => {
    const user = await createViaApi(org);

    const response = await org.admin.api.post(org.url(), createBody(org, { email: user.email }));

    const body = expectError(response, 409, 'EMAIL_TAKEN');
    expect(body.message).not.toContain('reactivate');
  });

  test.each([
    ['EDITOR', 'An EDITOR needs'],
    ['VIEWER', 'A VIEWER needs'],
    ['SUPERVISOR', 'A SUPERVISOR needs'],
  ])('a %s without permissions reads "%s…"', async (role, wording) => {
    const response = await org.admin.api.post(org.url(), createBody(org, { role, permissions: [] }));

    const [detail] = expectFieldErrors(response, ['permissions']);
    expect(detail!.message.startsWith(wording)).toBe(true);
  });

  test('the reactivation e-mail without a new password fits a user who never chose one', async () => {
    const user = await createViaApi(org, { password: undefined, confirmPassword: undefined });
    await deleteViaApi(org, user.uuid);
    await onlyMailTo(user.email);

    const reactivated = await org.admin.api.put(org.url('/activate'), { email: user.email });

    expect(reactivated.status).toBe(200);
    const [, reactivation] = await mailsTo(user.email);
    expect(reactivation!.subject).toContain('active again');
    expect(reactivation!.body.text).toContain('If you never chose one');
    expect(reactivation!.body.text).not.toContain('the one you used before');
  });
});
