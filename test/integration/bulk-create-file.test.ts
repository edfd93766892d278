import { MULTIPART_MAX_BYTES } from '../../shared/app/bulk/bulk.limits';
import { BULK_COLUMNS, codesOf, csvOf, expectNothingFor, rowFor, rule, uploadCsv, type NoUserCreatedBody } from '../support/bulk-helpers';
import { expectError } from '../support/error-body';
import { ownOrganization, tokenOf, uniqueEmail, usersWithEmail, userWithEmail } from '../support/user-helpers';

/**
 * The file of `POST /users/bulk-create` (docs/api/bulk.md): how a CSV file is read (header, BOM, CRLF,
 * quoting, line numbers) and the files refused whole (empty, not CSV, columns missing, too many rows,
 * too large, not multipart), which create nobody. One organization of the file's own.
 */

const org = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('the file format', () => {
  test('header in any order, case and spacing, a BOM, CRLF, quoted commas, quotes and line breaks: lines count as the file has them', async () => {
    const good = uniqueEmail('fmt-good');
    const multi = uniqueEmail('fmt-multiline');
    const bad = uniqueEmail('fmt-bad');
    const after = uniqueEmail('fmt-after');
    const file =
      '\ufeff role , EMAIL ,Name,company,PASSWORD,environmentuuid,EnvironmentName,BOT\r\n' +
      `ADMIN,${good},"Smith, ""Jo""","Acme, ""Intl""",Passw0rd-Good,,,\r\n` +
      `ADMIN,${multi},"Two\nLines",,,,,\r\n` +
      '\r\n' +
      `OWNER,${bad},Bad Role,,,,,\r\n` +
      `ADMIN,${after},After,,Passw0rd-After,,,\r\n`;

    const answer = await uploadCsv(org, file);

    expect(answer.status).toBe(200);
    // Name and Company are one line each; the rows after a two-line field and an empty line keep their real line numbers.
    expect(codesOf(answer.body)).toEqual([rule(multi, 3, 'FIELD_TOO_LONG'), rule(bad, 6, 'ROLE_INVALID')]);
    expect(await userWithEmail(org, good)).toMatchObject({ name: 'Smith, "Jo"', company: 'Acme, "Intl"', role: 'ADMIN' });
    expect(await userWithEmail(org, after)).toMatchObject({ name: 'After' });
    expect((await tokenOf(org.realm, after, 'Passw0rd-After')).access_token).toEqual(expect.any(String));
    await expectNothingFor(org, [multi, bad]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('files refused whole', () => {
  /** A file whose first row would create a user, then `rest`. */
  const fileWith = (email: string, rest = '') => `${csvOf([rowFor(org, 'ADMIN', email)])}${rest}`;

  test.each([
    ['an empty file', 'EMPTY_FILE', () => ''],
    ['a header without rows', 'EMPTY_FILE', () => `${BULK_COLUMNS.join(',')}\r\n\r\n`],
    ['a binary file', 'NOT_CSV', () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d])],
    ['a file with an unclosed quote after a good row', 'NOT_CSV', (email: string) => fileWith(email, 'x@example.test,"Unclosed,ADMIN\r\n')],
    ['a Latin-1 file', 'NOT_CSV', (email: string) => Buffer.from(fileWith(email, 'y@example.test,Jos\xe9,,,ADMIN,,,\r\n'), 'latin1')],
    ['a file without the Role column', 'MISSING_COLUMNS', (email: string) => `Email,Name,Password\r\n${email},Someone,Passw0rd-1\r\n`],
  ] as const)('%s is a 422 %s and creates nobody', async (_what, errorCode, file) => {
    const email = uniqueEmail('refused');

    const answer = await uploadCsv(org, file(email));

    expectError(answer, 422, errorCode);
    await expectNothingFor(org, [email]);
  });

  test('MISSING_COLUMNS names the columns missing', async () => {
    const answer = await uploadCsv(org, `EMAIL,Company\r\n${uniqueEmail('cols')},Acme\r\n`);

    const body = expectError(answer, 422, 'MISSING_COLUMNS');
    expect(body.message).toMatch(/Name/);
    expect(body.message).toMatch(/Role/);
  });

  test('10,000 rows are read; 10,001 are a 422 TOO_MANY_ROWS before any user is created', async () => {
    const first = uniqueEmail('rows-first');
    const tag = uniqueEmail('rows').split('@')[0];
    // Rows that fail alone (unknown role) cost no store reads: the limit is what is measured.
    const invalid = (count: number) => Array.from({ length: count }, (_, i) => ({ Email: `${tag}-${i}@example.test`, Name: 'Row', Role: 'NOBODY' }));

    const atLimit = await uploadCsv<NoUserCreatedBody>(org, csvOf(invalid(10_000)), { dryRun: true });
    const overLimit = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', first), ...invalid(10_000)]));

    expect(expectError(atLimit, 422, 'NO_USER_CREATED').details).toHaveLength(10_000);
    expectError(overLimit, 422, 'TOO_MANY_ROWS');
    await expectNothingFor(org, [first]);
  });

  test('4 MiB are read (what a 6 MB Lambda event carries once base64-encoded); one byte more is a 413 FILE_TOO_LARGE and creates nobody', async () => {
    const limit = MULTIPART_MAX_BYTES;
    const [fits, tooLarge] = [uniqueEmail('size-fits'), uniqueEmail('size-over')];
    // Empty lines fill the file up: they are skipped, so only the size differs.
    const padded = (email: string, size: number) => {
      const head = fileWith(email);
      return head + '\n'.repeat(size - Buffer.byteLength(head));
    };

    const atLimit = await uploadCsv(org, padded(fits, limit));
    const overLimit = await uploadCsv(org, padded(tooLarge, limit + 1));

    expect({ status: atLimit.status, body: atLimit.body }).toEqual({ status: 200, body: [] });
    expect(await usersWithEmail(org, fits)).toHaveLength(1);
    expectError(overLimit, 413, 'FILE_TOO_LARGE');
    await expectNothingFor(org, [tooLarge]);
  });

  test('a body that is not multipart is a 415; a form without the file part is a 422 naming it', async () => {
    const email = uniqueEmail('not-multipart');
    const csv = csvOf([rowFor(org, 'ADMIN', email)]);

    const json = await org.admin.api.post(org.url('/bulk-create'), { file: csv });
    const raw = await org.admin.api.post(org.url('/bulk-create'), csv, { 'content-type': 'text/csv' });
    const wrongPart = await uploadCsv(org, csv, { part: 'upload' });

    expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(raw, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(expectError(wrongPart, 422, 'VALIDATION_FAILED').details?.map((d) => d.fieldName)).toEqual(['file']);
    await expectNothingFor(org, [email]);
  });
});
