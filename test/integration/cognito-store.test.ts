import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadState } from '../../infra/local/cognito-store';
import { config } from '../../shared/kernel/config';
import { createTestUser } from '../support/auth-helpers';

// The embedded Cognito keeps each store as a snapshot plus a journal of writes: concurrent user
// creation must leave both readable, with every user in them, or the next `npm start` on the same data
// would lose users or fail to load.
test('concurrent user creation leaves every cognito-local store whole, with every user in it', async () => {
  const users = await Promise.all(Array.from({ length: 24 }, () => createTestUser()));

  const dir = join(process.env.TEST_STACK_DIR!, 'cognito', 'db');
  const ids = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length));
  expect(ids).toContain(config().userPoolId);
  for (const id of ids) expect(() => loadState(join(dir, `${id}.json`), join(dir, `${id}.journal`), {})).not.toThrow();
  const pool = loadState(join(dir, `${config().userPoolId}.json`), join(dir, `${config().userPoolId}.journal`), {}) as { Users: Record<string, unknown> };
  for (const { user } of users) expect(pool.Users[user.uuid]).toMatchObject({ Username: user.uuid, UserStatus: 'CONFIRMED' });
});
