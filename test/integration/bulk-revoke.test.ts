import { randomUUID } from 'node:crypto';
import { bulkRoutes } from '../support/bulk-helpers';
import { botReach, codesOf, deletedMember, grantOf, grantsOfUser, revokeRequest, seededOrg, signInStatus, someone, sortedGrants } from '../support/bulk-users-helpers';
import { expectError, expectFieldErrors } from '../support/error-body';
import { ownOrganization, readUser, selfReadStatus, uniqueEmail } from '../support/user-helpers';

/**
 * `DELETE /users/bulk-permissions` (docs/api/bulk.md): each item of a JSON list revokes a bot, an
 * environment or every grant of a user, on its own; the answer lists the items that failed with a
 * stable code and their index. Effects are checked the way a client sees them: reading the user and
 * reaching a bot with the user's token. One organization of the file's own.
 */

const org = ownOrganization();

// ---------------------------------------------------------------------------------------------------
describe('DELETE /users/bulk-permissions', () => {
  test('environmentUuid and bot revoke that bot: the token loses it at once and keeps the others', async () => {
    const viewer = await someone(org, 'VIEWER', ['A1', 'A2']);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 200, B1: 403 });

    // UUIDs in any case.
    const response = await bulkRoutes(org).revoke([{ email: viewer.email, environmentUuid: org.envA.toUpperCase(), bot: org.botA2.toUpperCase() }]);

    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 403 });
    expect(await readUser(org, viewer.uuid)).toMatchObject({ role: 'VIEWER', status: 'ACTIVE' });
  });

  test('environmentUuid alone revokes every grant in that environment, bot grants and the environment-wide one', async () => {
    const [editor, supervisor] = await Promise.all([someone(org, 'EDITOR', ['A1', 'A2', 'B1']), someone(org, 'SUPERVISOR', ['envA', 'A1', 'B1'])]);

    const response = await bulkRoutes(org).revoke([
      { email: editor.email, environmentUuid: org.envA },
      { email: supervisor.email, environmentUuid: org.envA },
    ]);

    expect([response.status, response.body]).toEqual([200, []]);
    expect(await grantsOfUser(org, editor.uuid)).toEqual([grantOf(org, 'B1')]);
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual([grantOf(org, 'B1')]);
    expect(await botReach(org, editor)).toEqual({ A1: 403, A2: 403, B1: 200 });
    expect(await botReach(org, supervisor)).toEqual({ A1: 403, A2: 403, B1: 200 });
  });

  test('email alone revokes every grant: the user stays, signs in, and reaches no bot', async () => {
    const editor = await someone(org, 'EDITOR', ['A1', 'B1']);

    const response = await bulkRoutes(org).revoke([{ email: editor.email }]);

    expect([response.status, response.body]).toEqual([200, []]);
    expect(await readUser(org, editor.uuid)).toMatchObject({ role: 'EDITOR', status: 'ACTIVE', permissions: [] });
    expect(await botReach(org, editor)).toEqual({ A1: 403, A2: 403, B1: 403 });
    expect(await selfReadStatus(org, editor)).toBe(200);
    expect(await signInStatus(org, editor)).toBe(200);
    // "Every grant" of a user that has none is done already: no error.
    expect((await bulkRoutes(org).revoke([{ email: editor.email }])).body).toEqual([]);
  });

  /** A list with one item per error code (and its variants) and valid items among them; the expected errors. */
  async function mixedList() {
    const [viewer, supervisor, gone] = await Promise.all([someone(org, 'VIEWER', ['A1', 'B1']), someone(org, 'SUPERVISOR', ['envA']), deletedMember(org)]);
    const unknown = uniqueEmail('revoke-unknown');
    const items: [{ email: string; environmentUuid?: string; bot?: string }, string | undefined][] = [
      [{ email: unknown }, 'USER_NOT_FOUND'],
      [{ email: gone.email, environmentUuid: org.envA, bot: org.botA1 }, 'USER_NOT_FOUND'],
      [{ email: seededOrg().admin.email }, 'USER_NOT_FOUND'],
      [{ email: org.admin.email }, 'ADMIN_HAS_ALL'],
      [{ email: viewer.email, environmentUuid: org.envA, bot: org.botA2 }, 'GRANT_NOT_FOUND'],
      [{ email: viewer.email, environmentUuid: org.inactiveEnv }, 'GRANT_NOT_FOUND'],
      [{ email: viewer.email, environmentUuid: randomUUID(), bot: org.botB1 }, 'GRANT_NOT_FOUND'],
      // An environment-wide grant is not a grant of each of its bots.
      [{ email: supervisor.email, environmentUuid: org.envA, bot: org.botA1 }, 'GRANT_NOT_FOUND'],
      [{ email: viewer.email.toUpperCase(), environmentUuid: org.envB, bot: org.botB1 }, undefined],
      [{ email: supervisor.email, environmentUuid: org.envB }, 'GRANT_NOT_FOUND'],
    ];
    const errors = items.flatMap(([item, errorCode], index) => (errorCode ? [{ email: item.email, errorCode, index }] : []));
    return { viewer, supervisor, gone, items: items.map(([item]) => item), errors };
  }

  test('reports every item that cannot be revoked with its index and code, and revokes the others', async () => {
    const { viewer, supervisor, gone, items, errors } = await mixedList();
    const goneBefore = await readUser(org, gone.uuid);

    const response = await bulkRoutes(org).revoke(items);

    expect(response.status).toBe(200);
    expect(codesOf(response.body)).toEqual(errors);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual([grantOf(org, 'envA')]);
    expect(await readUser(org, gone.uuid)).toEqual(goneBefore);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 403 });
  });

  test('dryRun=true answers what the real run answers and revokes nothing', async () => {
    const { viewer, supervisor, items, errors } = await mixedList();

    const dry = await bulkRoutes(org).revoke(items, true);

    expect(dry.status).toBe(200);
    expect(codesOf(dry.body)).toEqual(errors);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual(sortedGrants([grantOf(org, 'A1'), grantOf(org, 'B1')]));
    expect(await grantsOfUser(org, supervisor.uuid)).toEqual([grantOf(org, 'envA')]);
    expect(await botReach(org, viewer)).toEqual({ A1: 200, A2: 403, B1: 200 });

    const real = await bulkRoutes(org).revoke(items, false);

    expect(real.body).toEqual(dry.body);
    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });

  // A dry run judges each item against what the earlier items of the list would have revoked, so a
  // grant revoked twice (or a bot grant after its whole environment) fails in both runs alike.
  test('a dry run answers what the real run answers for a list that revokes one grant twice', async () => {
    const editor = await someone(org, 'EDITOR', ['A1', 'A2', 'B1']);
    const items = [
      { email: editor.email, environmentUuid: org.envB, bot: org.botB1 },
      { email: editor.email, environmentUuid: org.envB, bot: org.botB1 },
      { email: editor.email, environmentUuid: org.envA },
      { email: editor.email, environmentUuid: org.envA, bot: org.botA1 },
    ];

    const dry = await bulkRoutes(org).revoke(items, true);
    const real = await bulkRoutes(org).revoke(items);

    expect(codesOf(real.body)).toEqual([
      { email: editor.email, errorCode: 'GRANT_NOT_FOUND', index: 1 },
      { email: editor.email, errorCode: 'GRANT_NOT_FOUND', index: 3 },
    ]);
    expect(dry.body).toEqual(real.body);
  });

  test.each([
    ['bot without environmentUuid', [{ email: 'VALID', bot: 'BOT' }], ['0.environmentUuid']],
    ['an environmentUuid that is no uuid', [{ email: 'VALID', environmentUuid: 'env-a' }], ['0.environmentUuid']],
    ['a bot that is no uuid', [{ email: 'VALID', environmentUuid: 'ENV', bot: 'bot-a1' }], ['0.bot']],
    ['an item without email', [{ email: 'VALID', environmentUuid: 'ENV', bot: 'BOT' }, { environmentUuid: 'ENV' }], ['1.email']],
    ['a blank email', [{ email: '  ' }], ['0.email']],
    ['a field of no item', [{ email: 'VALID', environmentUuid: 'ENV', bot: 'BOT', botUuid: 'BOT' }], ['0.botUuid']],
    ['an empty list', [], ['(body)']],
    ['a list of 1001 items', 'MANY', ['(body)']],
    ['an object instead of a list', { email: 'VALID' }, ['(body)']],
  ])('%s is 422 and revokes nothing', async (_what, body, fields) => {
    const viewer = await someone(org, 'VIEWER', ['A1']);
    const values: Record<string, string> = { VALID: viewer.email, ENV: org.envA, BOT: org.botA1 };
    const fill = (item: unknown) => Object.fromEntries(Object.entries(item as object).map(([k, v]) => [k, values[v as string] ?? v]));
    const payload = body === 'MANY' ? Array.from({ length: 1001 }, () => ({ email: viewer.email })) : Array.isArray(body) ? body.map(fill) : fill(body);

    expectFieldErrors(await revokeRequest(org, payload), fields);
    expectFieldErrors(await revokeRequest(org, payload, { dryRun: true }), fields);

    expect(await grantsOfUser(org, viewer.uuid)).toEqual([grantOf(org, 'A1')]);
  });

  test('a body that is not JSON is 400 MALFORMED_JSON', async () => {
    expectError(await revokeRequest(org, '[{"email": '), 400, 'MALFORMED_JSON');
  });
});
