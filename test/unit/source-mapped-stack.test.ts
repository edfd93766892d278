import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions, deployedMode, projectRoot } from '../../scripts/build-bundles';
import { sourceMappedStack } from '../../shared/kernel/source-mapped-stack';

/**
 * A function's bundle as it deploys (minified, its map beside it without the sources' text, no
 * `--enable-source-maps`) logs an error through the project's logger: the logged stack names the
 * TypeScript lines, and the functions in them.
 */
const dir = mkdtempSync(join(tmpdir(), 'source-mapped-stack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIXTURE = [
  `import { logger } from ${JSON.stringify(join(projectRoot, 'shared/kernel/logger'))};`,
  'export function explode(): never {',
  "  throw new Error('boom', { cause: new TypeError('underneath') });",
  '}',
  'export function callsExplode(): void {',
  '  try {',
  '    explode();',
  '  } catch (error) {',
  "    logger.error('fixture failed', error as Error);",
  '  }',
  '}',
  'callsExplode();',
].join('\n');

async function runBundled(): Promise<{ stdout: string; stderr: string; status: number | null }> {
  writeFileSync(join(dir, 'fixture.ts'), FIXTURE);
  await build({ ...esbuildOptions(deployedMode()), absWorkingDir: projectRoot, entryPoints: [join(dir, 'fixture.ts')], outfile: join(dir, 'out', 'index.js') });
  const env = { PATH: process.env.PATH, NODE_PATH: join(projectRoot, 'node_modules'), POWERTOOLS_SERVICE_NAME: 'fixture', POWERTOOLS_DEV: '' };
  return spawnSync(process.execPath, [join(dir, 'out', 'index.js')], { env, encoding: 'utf8', timeout: 30_000 });
}

test("a bundle's logged error shows its TypeScript file, lines and function names, its cause's too", async () => {
  const run = await runBundled();
  expect(run.status).toBe(0);
  // Powertools writes errors to stderr.
  const record = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as { error: { location: string; stack: string; cause: { stack: string } } };

  expect(record.error.location).toMatch(/fixture\.ts:3$/);
  const frames = record.error.stack.split('\n').slice(1, 3).map((line) => line.trim());
  expect(frames[0]).toMatch(/^at explode \(.*fixture\.ts:3:\d+\)$/);
  expect(frames[1]).toMatch(/^at callsExplode \(.*fixture\.ts:7:\d+\)$/);
  expect(record.error.cause.stack).toMatch(/fixture\.ts:3:\d+/);
  expect(record.error.stack).not.toContain('index.js:');
});

test('frames in files without a map beside them, and text that is no frame, are left as they are', () => {
  const stack = [
    'Error: no map here',
    `    at run (${join(dir, 'nowhere', 'index.js')}:1:200)`,
    '    at Module._compile (node:internal/modules/cjs/loader:1929:14)',
    '    at async Promise.all (index 0)',
  ].join('\n');
  expect(sourceMappedStack(stack)).toBe(stack);
});
