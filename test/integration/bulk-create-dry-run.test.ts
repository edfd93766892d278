import { codesOf, csvOf, expectNothingFor, getBulk, rowFor, rule, uploadCsv, type NoUserCreatedBody } from '../support/bulk-helpers';
import { expectError } from '../support/error-body';
import { mailsTo, member, ownOrganization, uniqueEmail, usersWithEmail } from '../support/user-helpers';

/**
 * `POST /users/bulk-create?dryRun=true` (docs/api/bulk.md): every check, no change, and the answer the
 * real run then gives. One organization of the file's own.
 */

const org = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('dryRun', () => {
  test('checks everything, changes nothing, and answers the errors the real run then answers', async () => {
    const taken = await member(org, 'VIEWER');
    const valid = [uniqueEmail('dry-a'), uniqueEmail('dry-b')];
    const conflict = uniqueEmail('dry-conflict');
    const file = csvOf([
      rowFor(org, 'VIEWER', valid[0]!, { Password: 'Dry-Passw0rd' }),
      rowFor(org, 'VIEWER', taken.email),
      rowFor(org, 'SUPERVISOR', conflict),
      rowFor(org, 'ADMIN', conflict),
      rowFor(org, 'EDITOR', valid[1]!),
      rowFor(org, 'VIEWER', uniqueEmail('dry-inactive'), { Bot: org.inactiveBot }),
    ]);

    const dry = await uploadCsv(org, file, { dryRun: true });

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual([rule(taken.email, 3, 'EMAIL_TAKEN'), rule(conflict, 5, 'CONFLICTING_ROWS'), expect.objectContaining({ line: 7, errorCode: 'BOT_NOT_FOUND' })]);
    await expectNothingFor(org, [...valid, conflict]);
    const job = await getBulk(org, new URL(dry.headers.get('location')!, org.url()).toString());
    expect(job.body).toMatchObject({ status: 'done', dryRun: true, counts: { rows: 6, created: 2, failed: 3 } });

    const real = await uploadCsv(org, file, { dryRun: 'false' });

    expect(real.status).toBe(200);
    expect(real.body).toEqual(dry.body);
    for (const email of valid) expect(await usersWithEmail(org, email)).toHaveLength(1);
    expect(await mailsTo(valid[0]!)).toHaveLength(1);
  });

  test('a dry run in which no user could be created is the 422 the real run would be, and the real run changes nothing either', async () => {
    const taken = await member(org, 'SUPERVISOR');
    const bad = uniqueEmail('dry-none');
    const file = csvOf([rowFor(org, 'SUPERVISOR', taken.email), rowFor(org, 'VIEWER', bad, { Role: 'GUEST' })]);

    const dry = await uploadCsv<NoUserCreatedBody>(org, file, { dryRun: true });
    const real = await uploadCsv<NoUserCreatedBody>(org, file);

    expectError(dry, 422, 'NO_USER_CREATED');
    expectError(real, 422, 'NO_USER_CREATED');
    expect(codesOf(dry.body.details)).toEqual([rule(taken.email, 2, 'EMAIL_TAKEN'), rule(bad, 3, 'ROLE_INVALID')]);
    expect(dry.body.details).toEqual(real.body.details);
    await expectNothingFor(org, [bad]);
  });

  test('dryRun must be true or false', async () => {
    const email = uniqueEmail('dry-maybe');

    const answer = await uploadCsv(org, csvOf([rowFor(org, 'ADMIN', email)]), { dryRun: 'maybe' });

    expect(expectError(answer, 422, 'VALIDATION_FAILED').details?.map((d) => d.fieldName)).toEqual(['dryRun']);
    await expectNothingFor(org, [email]);
  });
});
