import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { committedOpenApi, openApiFileText } from '../../scripts/openapi-file';
import { expectCommittedAsGenerated } from '../support/generated-file';

const root = join(__dirname, '../..');
const update = `npm run openapi -- --out ${committedOpenApi.file}`;

describe('the committed OpenAPI document', () => {
  it(`is the document the code builds now (${committedOpenApi.file})`, () => {
    // The same function `npm run openapi` writes the file with, for the default subpaths.
    const generated = openApiFileText();
    const committed = readFileSync(join(root, committedOpenApi.file), 'utf8');

    expectCommittedAsGenerated(
      committed,
      generated,
      `${committedOpenApi.file} differs from the document the code builds: run ${update} to update ${committedOpenApi.file}, and commit it.`,
    );
    expect(JSON.parse(committed)).toMatchObject({ openapi: '3.1.0', servers: [{ url: committedOpenApi.serverUrl }] });
  });
});
