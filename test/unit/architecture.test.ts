import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');
const page = 'docs/architecture.md';
const section = '## Layers';

/** The layers `.dependency-cruiser.cjs` enforces, top to bottom: each a list of folder patterns. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { layers } = require('../../.dependency-cruiser.cjs') as { layers: string[][] };

/**
 * A pattern as the page writes it: regular-expression escapes dropped (`shared/kernel/config\.ts` is
 * `shared/kernel/config.ts`), a negative lookahead dropped and "any one folder" written `*`
 * (`functions/(?!common/)[^/]+` is `functions/*`).
 */
const readable = (pattern: string): string =>
  pattern
    .replace(/\(\?![^)]*\)/g, '')
    .replace(/\[\^\/\]\+/g, '*')
    .replace(/\\(.)/g, '$1');

/** The numbered list of the page's layers section: per item, the folders it names in backticks. */
function documentedLayers(): string[][] {
  const text = readFileSync(join(root, page), 'utf8');
  const start = text.indexOf(`\n${section}\n`);
  if (start === -1) throw new Error(`${page} has no "${section}" section`);
  const body = text.slice(start + section.length + 2).split(/\n## /)[0]!;
  return body
    .split('\n')
    .filter((line) => /^\d+\. /.test(line))
    .map((line) => [...line.split(':')[0]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));
}

describe(`${page} states the layers .dependency-cruiser.cjs enforces`, () => {
  it('reads the layers from the rules (a non-enumerable export)', () => {
    expect(layers.length).toBeGreaterThan(5);
    expect(readable('functions/(?!common/)[^/]+')).toBe('functions/*');
    expect(readable('shared/kernel/config\\.ts')).toBe('shared/kernel/config.ts');
  });

  it('one numbered line per layer, top to bottom, naming the same folders in the same order', () => {
    const expected = layers.map((layer) => layer.map(readable));
    const documented = documentedLayers();
    const mismatch = expected
      .map((folders, at) => ({ at: at + 1, folders, documented: documented[at] ?? [] }))
      .filter(({ folders, documented }) => folders.join(' ') !== documented.join(' '))
      .map(({ at, folders, documented }) => `layer ${at}: the rules say ${folders.join(', ')}; ${page} says ${documented.join(', ') || 'nothing'}`);
    if (documented.length !== expected.length) mismatch.push(`${page} lists ${documented.length} layers, the rules ${expected.length}`);
    expect(mismatch).toEqual([]);
  });
});

describe('every module of shared/ sits in a layer', () => {
  const patterns = layers.flat().map((pattern) => new RegExp(`^${pattern}(/|$)`));

  it('each folder and file directly under a tier of shared/ matches a layer of the rules', () => {
    const tiersOfShared = readdirSync(join(root, 'shared'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    const modules = tiersOfShared.flatMap((tier) =>
      readdirSync(join(root, 'shared', tier.name), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() || /\.ts$/.test(entry.name))
        .map((entry) => `shared/${tier.name}/${entry.name}`),
    );
    expect(modules.length).toBeGreaterThan(20);
    expect(modules.filter((path) => !patterns.some((pattern) => pattern.test(path)))).toEqual([]);
  });
});

describe(`${page} states the local stack's ladder`, () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { localRungs } = require('../../.dependency-cruiser.cjs') as { localRungs: string[][] };

  it('the table of rungs names the folders of each rung of the rules, top to bottom', () => {
    const text = readFileSync(join(root, page), 'utf8');
    const body = text.slice(text.indexOf("\n### The local stack's folders\n")).split(/\n## /)[0]!;
    const documented = body
      .split('\n')
      .filter((line) => /^\| \d+ \|/.test(line))
      .map((line) => [...line.split('|')[2]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.replace(/\/$/, '')));
    const expected = localRungs.map((rung) => rung.map((pattern) => (pattern.includes('(?!') ? 'infra/local' : pattern.replace('infra/local/', ''))));
    expect(documented).toEqual(expected);
  });
});
