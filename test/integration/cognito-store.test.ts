import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestUser } from '../support/auth-helpers';

// cognito-local keeps each user pool in a JSON file; concurrent user creation must leave it whole, or
// the next `npm start` on the same data fails to load it.
test('concurrent user creation leaves every cognito-local data file readable', async () => {
  await Promise.all(Array.from({ length: 24 }, () => createTestUser()));

  const dir = join(process.env.TEST_STACK_DIR!, 'cognito', 'db');
  const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    expect(() => JSON.parse(readFileSync(join(dir, file), 'utf8'))).not.toThrow();
  }
});
