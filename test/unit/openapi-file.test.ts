import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { committedOpenApi, openApiFileText } from '../../scripts/openapi-file';

const root = join(__dirname, '../..');
const update = `npm run openapi -- --out ${committedOpenApi.file}`;

describe('the committed OpenAPI document', () => {
  it(`is the document the code builds now (${committedOpenApi.file})`, () => {
    // The same function `npm run openapi` writes the file with, for the default subpaths.
    const generated = openApiFileText();
    const committed = readFileSync(join(root, committedOpenApi.file), 'utf8');

    if (committed !== generated) {
      const committedLines = committed.split('\n');
      const generatedLines = generated.split('\n');
      let line = 0;
      while (committedLines[line] === generatedLines[line]) line++;
      throw new Error(
        `${committedOpenApi.file} differs from the document the code builds: run ${update} to update ${committedOpenApi.file}, and commit it.\n` +
          `First difference, line ${line + 1}:\n  committed: ${committedLines[line] ?? '(end of file)'}\n  generated: ${generatedLines[line] ?? '(end of file)'}`,
      );
    }
    expect(JSON.parse(committed)).toMatchObject({ openapi: '3.1.0', servers: [{ url: committedOpenApi.serverUrl }] });
  });
});
