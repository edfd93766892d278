import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { BULK_COLUMNS, bulkRoutes, codesOf, csvOf, expectNothingFor, pollJob, quoteField, rowFor, rule, stageJob, uploadCsv, type JobView } from '../support/bulk-helpers';
import { expectError } from '../support/error-body';
import { stack } from '../support/stack';
import { member, ownOrganization, uniqueEmail, usersWithEmail, userWithEmail } from '../support/user-helpers';

/**
 * The bulk-create job (docs/api/bulk.md): started by a presigned upload (`POST /users/bulk-uploads`) or
 * by `Prefer: respond-async`, read at `GET /users/bulk-jobs/{jobId}` and its failed rows at
 * `GET /users/bulk-jobs/{jobId}/failed-rows`. One organization of the file's own.
 */

const org = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('presigned uploads (POST /users/bulk-uploads)', () => {
  test('the client POSTs the form it gets with the file; the upload runs the job, which reports as any other', async () => {
    const email = uniqueEmail('presigned');
    const { status, headers, body } = await bulkRoutes(org).upload({ language: 'es' });
    expect(status).toBe(201);
    expect(headers.get('location')).toBe(body.job);
    expect(Date.parse(body.upload.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);

    const form = new FormData();
    for (const [name, value] of Object.entries(body.upload.fields)) form.append(name, value);
    form.append('file', new Blob([csvOf([rowFor(org, 'VIEWER', email)])], { type: 'text/csv' }), 'users.csv');
    const posted = await fetch(body.upload.url, { method: body.upload.method, body: form });
    expect(posted.status).toBe(204);
    const { view } = await pollJob(org, body.job);

    expect(view).toMatchObject({ jobId: body.jobId, status: 'done', counts: { rows: 1, created: 1, failed: 0 }, errors: [] });
    expect(await usersWithEmail(org, email)).toHaveLength(1);
  });

  test('only an ADMIN of the organization gets an upload URL', async () => {
    const viewer = await member(org, 'VIEWER');
    const forbidden = await bulkRoutes(org, viewer.token).upload();
    expect(forbidden.status).toBe(403);
    const anonymous = await bulkRoutes(org, null).upload();
    expect(anonymous.status).toBe(401);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('Prefer: respond-async and the job resource', () => {
  test('202 with the Location of the job, which reports its progress and, once done, its counts and errors', async () => {
    const created = [uniqueEmail('async-a'), uniqueEmail('async-b')];
    const failing = uniqueEmail('async-fail');
    const file = csvOf([rowFor(org, 'VIEWER', created[0]!), rowFor(org, 'OWNER', failing), rowFor(org, 'ADMIN', created[1]!)]);

    const accepted = await uploadCsv<JobView>(org, file, { respondAsync: true });

    expect(accepted.status).toBe(202);
    const location = accepted.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^/${stack().userSubpath}/org/${org.orgUuid}/users/bulk-jobs/[0-9a-f-]{36}$`));
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.body).toMatchObject({ jobId: location.split('/').pop(), status: 'queued', dryRun: false });
    expect(accepted.body).not.toHaveProperty('errors');

    const { view, seen } = await pollJob(org, location);

    expect(seen.every((status) => ['queued', 'running', 'done'].includes(status))).toBe(true);
    expect(view).toMatchObject({
      jobId: accepted.body.jobId,
      status: 'done',
      dryRun: false,
      counts: { rows: 3, created: 2, failed: 1 },
      progress: { processed: 3, total: 3, percent: 100 },
      createdAt: accepted.body.createdAt,
    });
    expect(Date.parse(view.updatedAt)).toBeGreaterThanOrEqual(Date.parse(view.createdAt));
    expect(codesOf(view.errors!)).toEqual([rule(failing, 3, 'ROLE_INVALID')]);
    for (const email of created) expect(await usersWithEmail(org, email)).toHaveLength(1);
  });

  test('the failed rows come back as CSV (original columns plus Error, formulas neutralised); fixed, they upload and succeed', async () => {
    const [formula, phone, fine] = [uniqueEmail('rows-formula'), uniqueEmail('rows-phone'), uniqueEmail('rows-fine')];
    const formulaName = '=HYPERLINK("http://evil.test","click")';
    const file = csvOf([
      rowFor(org, 'OWNER', formula, { Name: formulaName }),
      rowFor(org, 'EDITOR', phone, { Name: 'Pat Phone', Company: '+1 555 0100', Bot: '' }),
      rowFor(org, 'ADMIN', fine),
    ]);
    const accepted = await uploadCsv<JobView>(org, file, { respondAsync: true });
    const { view } = await pollJob(org, accepted.headers.get('location')!);
    expect(view.counts).toEqual({ rows: 3, created: 1, failed: 2 });

    const failedRows = await bulkRoutes(org).failedRows(view.jobId);

    expect(failedRows.status).toBe(200);
    expect(failedRows.contentType).toMatch(/^text\/csv/);
    expect(failedRows.headers.get('content-disposition')).toMatch(/^attachment/);
    const messageOf = (email: string) => view.errors!.find((error) => error.email === email)!.message;
    expect(failedRows.text).toBe(
      [
        `${BULK_COLUMNS.join(',')},Error`,
        `${formula},${quoteField(`'${formulaName}`)},,,OWNER,,,,${quoteField(messageOf(formula))}`,
        `${phone},Pat Phone,'+1 555 0100,,EDITOR,${org.envA},Env A,,${quoteField(messageOf(phone))}`,
        '',
      ].join('\r\n'),
    );

    // Fix the rows in the file as given back (the Error column stays: unknown columns are ignored).
    const records = parse(failedRows.text, { columns: true }) as Record<string, string>[];
    records[0]!.Role = 'ADMIN';
    records[1]!.Bot = org.botA1;
    const fixed = csvOf(records, { columns: [...BULK_COLUMNS, 'Error'] });
    const again = await uploadCsv(org, fixed);

    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: [] });
    // Stored as the text of the fixed file: nothing of it was ever evaluated.
    expect(await userWithEmail(org, formula)).toMatchObject({ name: `'${formulaName}`, role: 'ADMIN' });
    expect(await userWithEmail(org, phone)).toMatchObject({ company: "'+1 555 0100", role: 'EDITOR', permissions: [{ environmentUuid: org.envA, botUuid: org.botA1 }] });
  });

  test('a job with no failed rows gives back only the header; a job not finished has no failed rows yet (404)', async () => {
    const done = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', uniqueEmail('rows-none'))]));
    const doneJob = done.headers.get('location')!.split('/').pop()!;
    const queued = await stageJob(org, csvOf([rowFor(org, 'ADMIN', uniqueEmail('rows-queued'))]));

    const none = await bulkRoutes(org).failedRows(doneJob);
    const notYet = await bulkRoutes(org).failedRows(queued.jobId);
    const queuedView = await bulkRoutes(org).job(queued.jobId);

    expect(done.status).toBe(200);
    expect(none.text).toBe(`${BULK_COLUMNS.join(',')},Error\r\n`);
    expectError(notYet, 404, 'NOT_FOUND');
    expect(queuedView.body).toMatchObject({ status: 'queued', progress: { percent: 0 } });
    expect(queuedView.body).not.toHaveProperty('errors');
  });

  test('a file refused whole makes a failed job that names the problem and has no errors or failed rows', async () => {
    const email = uniqueEmail('async-refused');
    const accepted = await uploadCsv<JobView>(org, `Email,Name\r\n${email},No Role\r\n`, { respondAsync: true });

    const { view } = await pollJob(org, accepted.headers.get('location')!);

    expect(accepted.status).toBe(202);
    expect(view).toMatchObject({ status: 'failed', failure: { errorCode: 'MISSING_COLUMNS', message: expect.stringMatching(/Role/) } });
    expect(view).not.toHaveProperty('errors');
    expectError(await bulkRoutes(org).failedRows(view.jobId), 404, 'NOT_FOUND');
    await expectNothingFor(org, [email]);
  });

  test('an unknown job is a 404', async () => {
    expectError(await bulkRoutes(org).job(randomUUID()), 404, 'NOT_FOUND');
    expectError(await bulkRoutes(org).failedRows(randomUUID()), 404, 'NOT_FOUND');
  });
});
