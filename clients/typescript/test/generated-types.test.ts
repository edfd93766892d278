import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectCommittedAsGenerated } from '../../../test/support/generated-file';

const root = join(__dirname, '../../..');
const typesFile = 'clients/typescript/src/generated/api-types.ts';

describe("the client's generated types", () => {
  it(`are those of docs/openapi.json as it is now (${typesFile})`, () => {
    // openapi-typescript ships ES modules jest's CommonJS runtime cannot load: the script runs in a child process.
    const generated = execFileSync(join(root, 'node_modules/.bin/tsx'), ['clients/typescript/scripts/generate-types.ts', '-'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const committed = readFileSync(join(root, typesFile), 'utf8');

    expectCommittedAsGenerated(committed, generated, `${typesFile} is out of date with docs/openapi.json: run \`npm run clients:types\` and commit the result.`);
    expect(generated).toContain('export interface paths {');
  }, 60_000);
});
