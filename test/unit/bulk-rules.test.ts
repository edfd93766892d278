import { randomUUID } from 'node:crypto';
import { BulkCreatePlan } from '../../shared/app/bulk/bulk-create.rules';
import { errorMessage, type ErrorCode } from '../../shared/kernel/errors';
import { jobUserUuid } from '../../shared/app/bulk/bulk-create.worker';
import { readCsv } from '../../shared/app/bulk/csv-file';
import { bulkCreateLayout, bulkCreateLimits } from '../../shared/app/bulk/bulk.limits';

/**
 * Bulk-create rules checked row by row and across rows of one e-mail, with rule 1 answered by a stub.
 * Only rows that never reach rule 7 (ADMIN rows, and rows failing before it) are used here, so no
 * store is read; rule 7 and rule 1 against the store are in test/integration/bulk-create-rows.test.ts.
 */

const ORG = randomUUID();
const ENV = randomUUID();
const BOT = randomUUID();
const HEADER = 'Email,Name,Company,Password,Role,EnvironmentUuid,EnvironmentName,Bot';

/** A plan of the rows of a file (header added), resolved with `taken` as the e-mails in use. */
async function resolved(lines: string[], taken: string[] = []) {
  const plan = new BulkCreatePlan();
  for await (const row of readCsv(`${HEADER}\n${lines.join('\n')}\n`, bulkCreateLayout, bulkCreateLimits)) plan.add(row);
  const asked: string[] = [];
  const result = await plan.resolve(ORG, async (emails) => {
    asked.push(...emails);
    return new Set(emails.filter((email) => taken.some((t) => t.toLowerCase() === email.toLowerCase())));
  });
  return { ...result, rows: plan.rows, asked };
}

/** The one error of a one-row file. */
async function errorOf(line: string) {
  const { errors, candidates } = await resolved([line]);
  expect(candidates).toEqual([]);
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

describe('one row alone', () => {
  test('a valid ADMIN row is a candidate with its values (trimmed), no permissions, and its line', async () => {
    const { candidates, errors, failedLines } = await resolved([' ada@example.test , Ada Admin ,Acme,Passw0rd!, admin ,,,']);

    expect(errors).toEqual([]);
    expect(failedLines.size).toBe(0);
    expect(candidates).toEqual([
      { email: 'ada@example.test', name: 'Ada Admin', company: 'Acme', password: 'Passw0rd!', role: 'ADMIN', permissions: [], line: 2, lines: [2] },
    ]);
  });

  test('a blank Password and Company are left out (the worker generates a password)', async () => {
    const { candidates } = await resolved(['ada@example.test,Ada,,,ADMIN,,,']);

    expect(candidates[0]).not.toHaveProperty('password');
    expect(candidates[0]).not.toHaveProperty('company');
  });

  test('an ADMIN row with environment and bot is still an ADMIN with no permissions', async () => {
    const { candidates, errors } = await resolved([`ada@example.test,Ada,,,ADMIN,${ENV},Env,${BOT}`]);

    expect(errors).toEqual([]);
    expect(candidates[0]).toMatchObject({ role: 'ADMIN', permissions: [] });
  });

  test.each<{ what: string; line: string; code: ErrorCode }>([
    { what: 'a missing e-mail', line: ',Ann,,,ADMIN,,,', code: 'EMAIL_INVALID' },
    { what: 'an e-mail without @', line: 'ann.example.test,Ann,,,ADMIN,,,', code: 'EMAIL_INVALID' },
    { what: 'an e-mail over 254 characters', line: `${'a'.repeat(250)}@example.test,Ann,,,ADMIN,,,`, code: 'EMAIL_INVALID' },
    { what: 'a missing name', line: 'ann@example.test,,,,ADMIN,,,', code: 'NAME_REQUIRED' },
    { what: 'a name over 200 characters', line: `ann@example.test,${'n'.repeat(201)},,,ADMIN,,,`, code: 'FIELD_TOO_LONG' },
    { what: 'a company over 200 characters', line: `ann@example.test,Ann,${'c'.repeat(201)},,ADMIN,,,`, code: 'FIELD_TOO_LONG' },
    { what: 'a name on two lines', line: 'ann@example.test,"Ann\nSmith",,,ADMIN,,,', code: 'FIELD_TOO_LONG' },
    { what: 'rule 4: a missing role', line: 'ann@example.test,Ann,,,,,,', code: 'ROLE_REQUIRED' },
    { what: 'rule 4: a role not among the four', line: 'ann@example.test,Ann,,,OWNER,,,', code: 'ROLE_INVALID' },
    { what: 'rule 3: a password under 6 characters', line: 'ann@example.test,Ann,,Ab1!x,ADMIN,,,', code: 'PASSWORD_POLICY' },
    { what: 'rule 3: a password without upper case', line: 'ann@example.test,Ann,,abcdef1,ADMIN,,,', code: 'PASSWORD_POLICY' },
    { what: 'rule 3: a password without lower case', line: 'ann@example.test,Ann,,ABCDEF1,ADMIN,,,', code: 'PASSWORD_POLICY' },
    { what: 'rule 3: a password of letters only', line: 'ann@example.test,Ann,,Abcdefgh,ADMIN,,,', code: 'PASSWORD_POLICY' },
    { what: 'rule 5: a VIEWER without Bot', line: `ann@example.test,Ann,,,VIEWER,${ENV},Env,`, code: 'ENVIRONMENT_AND_BOT_REQUIRED' },
    { what: 'rule 5: a VIEWER without EnvironmentName', line: `ann@example.test,Ann,,,VIEWER,${ENV},,${BOT}`, code: 'ENVIRONMENT_AND_BOT_REQUIRED' },
    { what: 'rule 5: an EDITOR without EnvironmentUuid', line: `ann@example.test,Ann,,,EDITOR,,Env,${BOT}`, code: 'ENVIRONMENT_AND_BOT_REQUIRED' },
    { what: 'rule 6: a SUPERVISOR without EnvironmentName', line: `ann@example.test,Ann,,,SUPERVISOR,${ENV},,`, code: 'ENVIRONMENT_REQUIRED' },
    { what: 'rule 6: a SUPERVISOR without EnvironmentUuid', line: 'ann@example.test,Ann,,,SUPERVISOR,,Env,', code: 'ENVIRONMENT_REQUIRED' },
    { what: 'rule 7: an EnvironmentUuid that is no uuid', line: `ann@example.test,Ann,,,VIEWER,env-1,Env,${BOT}`, code: 'ENVIRONMENT_NOT_FOUND' },
    { what: 'rule 7: a Bot that is no uuid', line: `ann@example.test,Ann,,,EDITOR,${ENV},Env,bot-1`, code: 'BOT_NOT_FOUND' },
  ])('$what fails the row with $code', async ({ line, code }) => {
    const error = await errorOf(line);

    expect(error).toEqual({ email: expect.any(String), line: 2, errorCode: code, message: expect.stringContaining(errorMessage(code, 'row')) });
  });

  test('a rule error names its rule in the message; a password error also says what is wrong', async () => {
    expect((await errorOf('ann@example.test,Ann,,,OWNER,,,')).message).toMatch(/^Rule 4:/);
    expect((await errorOf(`ann@example.test,Ann,,,VIEWER,${ENV},Env,`)).message).toMatch(/^Rule 5:/);
    expect((await errorOf('ann@example.test,Ann,,,SUPERVISOR,,,')).message).toMatch(/^Rule 6:/);
    expect((await errorOf('ann@example.test,Ann,,abcdef1,ADMIN,,,')).message).toMatch(/^Rule 3: .*upper-case/);
  });

  test('the error carries the e-mail as the file wrote it', async () => {
    expect((await errorOf('Ann@Example.TEST,Ann,,,OWNER,,,')).email).toBe('Ann@Example.TEST');
  });

  test('the role is read in any case; passwords of the policy pass (6 characters, special or digit)', async () => {
    const { candidates, errors } = await resolved(['a@example.test,A,,Abcde!,admin,,,', 'b@example.test,B,,Abcde1,Admin,,,']);

    expect(errors).toEqual([]);
    expect(candidates.map((c) => c.role)).toEqual(['ADMIN', 'ADMIN']);
  });
});

describe('rows of one e-mail', () => {
  test('rows that agree (e-mail in any case) make one candidate holding every line', async () => {
    const { candidates, errors, rows } = await resolved([
      'ann@example.test,Ann,,Passw0rd!,ADMIN,,,',
      'bob@example.test,Bob,,,ADMIN,,,',
      'ANN@example.test,Ann,,Passw0rd!,admin,,,',
    ]);

    expect(errors).toEqual([]);
    expect(rows).toBe(3);
    expect(candidates.map((c) => [c.email, c.line, c.lines])).toEqual([
      ['ann@example.test', 2, [2, 4]],
      ['bob@example.test', 3, [3]],
    ]);
  });

  test.each([
    ['another role', `ann@example.test,Ann,,,VIEWER,${ENV},Env,${BOT}`],
    ['another name', 'ann@example.test,Anne,,,ADMIN,,,'],
    ['another password', 'ann@example.test,Ann,,Other-Passw0rd,ADMIN,,,'],
    ['a password where the first had none', 'ann@example.test,Ann,,Passw0rd!,ADMIN,,,'],
  ])('a later row with %s is CONFLICTING_ROWS on its line, naming the first line; every line of the user fails', async (_what, second) => {
    const { candidates, errors, failedLines } = await resolved(['ann@example.test,Ann,,,ADMIN,,,', 'bob@example.test,Bob,,,ADMIN,,,', second]);

    expect(candidates.map((c) => c.email)).toEqual(['bob@example.test']);
    expect(errors).toEqual([
      { email: 'ann@example.test', line: 4, errorCode: 'CONFLICTING_ROWS', message: expect.stringMatching(/^Rules 1 and 2: .*first on line 2/) },
    ]);
    expect([...failedLines].sort()).toEqual([2, 4]);
  });

  test('a third row agreeing with the first does not undo the conflict, and adds its line to the failed ones', async () => {
    const { candidates, errors, failedLines } = await resolved(['ann@example.test,Ann,,,ADMIN,,,', 'ann@example.test,Anne,,,ADMIN,,,', 'ann@example.test,Ann,,,ADMIN,,,']);

    expect(candidates).toEqual([]);
    expect(errors.map((e) => [e.errorCode, e.line])).toEqual([['CONFLICTING_ROWS', 3]]);
    expect([...failedLines].sort()).toEqual([2, 3, 4]);
  });

  test('a bad row fails its user even when another row of it is good, in either order; one error per user', async () => {
    const { candidates, errors, failedLines } = await resolved([
      'ann@example.test,Ann,,,OWNER,,,',
      'ann@example.test,Ann,,,ADMIN,,,',
      'bob@example.test,Bob,,,ADMIN,,,',
      'bob@example.test,Bob,,short,ADMIN,,,',
    ]);

    expect(candidates).toEqual([]);
    expect(errors.map((e) => [e.email, e.errorCode, e.line])).toEqual([
      ['ann@example.test', 'ROLE_INVALID', 2],
      ['bob@example.test', 'PASSWORD_POLICY', 5],
    ]);
    expect([...failedLines].sort()).toEqual([2, 3, 4, 5]);
  });

  // Rows without a usable e-mail belong to no user: each gets its own entry with its line.
  test('every row without an e-mail gets its own error with its line', async () => {
    const { errors } = await resolved([',Ann,,,ADMIN,,,', ',Bob,,,VIEWER,,,']);

    expect(errors.map((e) => [e.errorCode, e.line])).toEqual([
      ['EMAIL_INVALID', 2],
      ['EMAIL_INVALID', 3],
    ]);
  });
});

describe('rule 1 and the result', () => {
  test('an e-mail in use is EMAIL_TAKEN on the first line of its user; rule 1 is asked once per user, not per row', async () => {
    const { candidates, errors, failedLines, asked } = await resolved(
      ['ann@example.test,Ann,,,ADMIN,,,', 'taken@example.test,T,,,ADMIN,,,', 'Taken@Example.test,T,,,ADMIN,,,'],
      ['TAKEN@example.test'],
    );

    expect(candidates.map((c) => c.email)).toEqual(['ann@example.test']);
    expect(errors).toEqual([{ email: 'taken@example.test', line: 3, errorCode: 'EMAIL_TAKEN', message: expect.stringMatching(/^Rule 1:/) }]);
    expect([...failedLines].sort()).toEqual([3, 4]);
    expect(asked.sort()).toEqual(['ann@example.test', 'taken@example.test']);
  });

  test('users failing a row rule are never looked up for rule 1', async () => {
    const { asked } = await resolved(['ann@example.test,Ann,,,OWNER,,,', 'bob@example.test,Bob,,,ADMIN,,,']);

    expect(asked).toEqual(['bob@example.test']);
  });

  test('errors and candidates are ordered by line whatever the order they were found in', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `u${i}@example.test,U,,,OWNER,,,` : `u${i}@example.test,U,,,ADMIN,,,`));

    const { candidates, errors } = await resolved(lines, ['u1@example.test', 'u10@example.test']);

    const errorLines = errors.map((e) => e.line);
    expect(errorLines).toEqual([...errorLines].sort((a, b) => a - b));
    expect(errorLines).toHaveLength(12);
    const candidateLines = candidates.map((c) => c.line);
    expect(candidateLines).toEqual([...candidateLines].sort((a, b) => a - b));
    expect(candidates).toHaveLength(18);
  });
});

describe('jobUserUuid', () => {
  const job = randomUUID();

  test('is a well-formed uuid (RFC 9562 version 8)', () => {
    expect(jobUserUuid(job, 'ann@example.test')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('is the same for the same job and e-mail (any case, surrounding spaces), so a rerun finds its users', () => {
    expect(jobUserUuid(job, ' Ann@Example.TEST ')).toBe(jobUserUuid(job, 'ann@example.test'));
  });

  test('differs between e-mails and between jobs', () => {
    const uuids = new Set([jobUserUuid(job, 'ann@example.test'), jobUserUuid(job, 'bob@example.test'), jobUserUuid(randomUUID(), 'ann@example.test')]);

    expect(uuids.size).toBe(3);
  });
});
