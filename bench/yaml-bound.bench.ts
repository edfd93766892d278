/**
 * `npm run bench:yaml`: the bounds of a YAML bundle body (shared/app/bundles/bundle.limits.ts). First the
 * guide: a bot of 500 agents (the most a bundle holds, seeded as the other benchmarks seed bots) on a
 * fresh local stack, exported as YAML through the API, and that export read back and planned. Then the
 * worst YAML shapes at the byte bound, each read by the product's reader (`readBundle`) in this
 * process: the median of several runs, and how the reader answers. Last, `yaml`'s own duplicate-key
 * check on flat maps, which the reader replaces. Writes its section of bench/bundles-figures.md
 * (`--quick`: fewer agents and runs, printed only).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse as parseYaml } from 'yaml';
import { runningLocalStack, useStackEnvironment } from '../infra/stack-target';
import { readBundle } from '../shared/app/bundles/bundle-format';
import { yamlBundleLimits } from '../shared/app/bundles/bundle.limits';
import { MAX_BUNDLE_ENTRIES } from '../shared/app/bundles/bundle.schemas';
import { BadRequestError, PayloadTooLargeError } from '../shared/kernel/errors';
import { seedBot } from './harness/bot';
import { check } from './harness/series';
import { accessToken, apiCall, cleanUp, projectRoot, startStack } from './harness/stack';
import { fmt, percentile } from './harness/stats';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 3 : 7;
const AGENTS = quick ? 50 : MAX_BUNDLE_ENTRIES;
const SECTION = '## YAML bodies: the bound and the parse';
const progress = (message: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
const median = (samples: number[]) => percentile(samples, 50);
const kib = (bytes: number) => `${fmt.int(bytes)} B (${fmt.kib(bytes)})`;

/** How the product's reader answers a body: read, or the status and code it refuses it with, and why. */
function answerOf(text: string): string {
  try {
    readBundle(text, 'application/yaml');
    return 'read';
  } catch (error) {
    if (error instanceof PayloadTooLargeError || error instanceof BadRequestError) {
      const status = error instanceof PayloadTooLargeError ? 413 : 400;
      return `${status} \`${error.code}\`: ${error.message.split(':')[0]!.replace(/ \(line \d+, column \d+\)/, '')}`;
    }
    throw error;
  }
}

/** The median of `RUNS` timed calls (after one untimed), in ms. */
function timeOf(work: () => unknown, runs = RUNS): number {
  work();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** `unit(i)` repeated until the text (after `head`) is as long as `bytes` allows, then `tail`. */
function upTo(bytes: number, head: string, unit: (i: number) => string, tail = ''): string {
  const parts = [head];
  let length = head.length + tail.length;
  for (let i = 0; ; i++) {
    const next = unit(i);
    if (length + next.length > bytes) break;
    parts.push(next);
    length += next.length;
  }
  return parts.join('') + tail;
}

/** The worst shapes of YAML at the byte bound (each a little under it), by what makes each costly. */
function worstShapes(bound: number, exported: string, agents: number): [string, string][] {
  const agentsAt = exported.indexOf('\n  - role:');
  const agent = exported.slice(agentsAt, exported.indexOf('\n  - role:', agentsAt + 1));
  return [
    [`the ${agents}-agent export, its agents repeated up to the bound`, upTo(bound, exported, () => agent)],
    ['flat map, block style (`k1: 1` lines)', upTo(bound, 'formatVersion: 1\n', (i) => `k${i.toString(36)}: 1\n`)],
    ['flat map, flow style (`{k1: 1, …}`)', upTo(bound, 'formatVersion: 1\nx: {', (i) => `k${i.toString(36)}: 1, `, '}\n')],
    ['flat map, keys long enough to stay under the keys-and-values bound', upTo(bound, 'formatVersion: 1\n', (i) => `k${i.toString(36).padStart(7, '0')}: 1\n`)],
    ['flow sequence (`[1,1,…]`)', upTo(bound, 'formatVersion: 1\nx: [', () => '1,', '1]\n')],
    ['flow sequence, items long enough to stay under the keys-and-values bound', upTo(bound, 'formatVersion: 1\nx: [', (i) => `${String(i).padStart(5, '0')},`, '1]\n')],
    ['block sequence (`- 1` lines)', upTo(bound, 'formatVersion: 1\nx:\n', () => '- 1\n')],
    ['deep nesting, flow (`[[[…]]]`)', `formatVersion: 1\nx: ${'['.repeat(bound / 2 - 20)}${']'.repeat(bound / 2 - 20)}\n`],
    ['deep nesting, block (`- - - … x` on one line)', `formatVersion: 1\nx:\n  ${'- '.repeat(bound / 2 - 20)}x\n`],
    ['many aliases (`*a` items)', upTo(bound, 'formatVersion: 1\na: &a [x]\nx:\n', () => '- *a\n')],
    ['aliases of aliases (10 levels of 10)', `formatVersion: 1\n${'abcdefghij'.split('').map((c, i) => `${c}: &${c} [${i === 0 ? Array(10).fill('x') : Array(10).fill(`*${'abcdefghij'[i - 1]}`)}]`).join('\n')}\n`],
    ['one long plain scalar', upTo(bound, 'formatVersion: 1\nx: ', () => 'lorem ', '\n')],
    ['one long double-quoted scalar with escapes', upTo(bound, 'formatVersion: 1\nx: "', () => 'a\\n\\u00e9', '"\n')],
    ['one long block scalar (`|` lines)', upTo(bound, 'formatVersion: 1\nx: |\n', () => '  lorem ipsum dolor sit amet\n')],
  ];
}

async function exportGuide() {
  progress('starting a fresh local stack');
  const stack = await startStack();
  useStackEnvironment(runningLocalStack(stack.dataDir));
  const org = stack.info.orgs[0]!;
  progress(`seeding a bot of ${AGENTS} agents`);
  const { environment, bot } = await seedBot(org.uuid, AGENTS, 'YAML bound');
  const token = await accessToken(stack.info, org);
  const url = `${stack.info.apiUrl}/${stack.info.generativeSubpath}/org/${org.uuid}/env/${environment.uuid}/bot/${bot.uuid}/bundle`;
  const yaml = await apiCall('GET', url, token.bearer, undefined, { accept: 'application/yaml' });
  const json = await apiCall('GET', url, token.bearer);
  check(yaml.startsWith('formatVersion: 1\n'), 'The export is not YAML');
  const plans: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    await token.refresh();
    const started = performance.now();
    const planned = JSON.parse(await apiCall('POST', `${url}/plan`, token.bearer, yaml, { 'content-type': 'application/yaml' })) as { changes: unknown[] };
    if (i > 0) plans.push(performance.now() - started);
    check(planned.changes.length === AGENTS + 1, 'The plan does not list every agent and the supervisor');
  }
  await stack.stop();
  return { yaml, json, planMs: median(plans) };
}

function section(guide: Awaited<ReturnType<typeof exportGuide>>, started: number, loadBefore: string): string {
  const bound = yamlBundleLimits.bytes;
  const yamlBytes = Buffer.byteLength(guide.yaml);
  progress('timing the worst shapes at the bound');
  const shapes = worstShapes(bound, guide.yaml, AGENTS).map(([label, text]) => {
    const answer = answerOf(text);
    return `| ${label} | ${fmt.int(Buffer.byteLength(text))} | ${fmt.ms(timeOf(() => answerOf(text)))} | ${answer} |`;
  });
  progress("timing yaml's own duplicate-key check");
  const flatMap = (bytes: number) => upTo(bytes, 'formatVersion: 1\n', (i) => `k${i.toString(36)}: 1\n`);
  const quadratic = [32, 64, 128, 256].map((size) => {
    const text = flatMap(size * 1024);
    return `| ${size} KiB | ${fmt.ms(timeOf(() => parseYaml(text, { maxAliasCount: 100 }), 1))} | ${fmt.ms(timeOf(() => answerOf(text), 3))} |`;
  });
  const machine = `${availableParallelism()} CPUs (nproc) × ${cpus()[0]?.model.trim()}, ${process.platform}/${process.arch}, Node ${process.version}`;
  const load = loadavg().map((value) => value.toFixed(2)).join(' / ');
  return [
    SECTION,
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:yaml\` (bench/yaml-bound.bench.ts) on ${machine}. ` +
      `Load average (1 / 5 / 15 min): ${loadBefore} at the start, ${load} at the end; the run took ${fmt.s(performance.now() - started)}. ` +
      `Times are medians of ${RUNS} runs after one untimed (the duplicate-key table: 1 and 3 runs), in this process, of the product's reader ` +
      '(`readBundle` of shared/app/bundles/bundle-format.ts, what `…/bundle/plan` and `…/bundle/apply` run before validation), so without HTTP, authentication or validation.',
    '### The guide: the largest bundle the API exports',
    `A fresh local stack, a bot of ${AGENTS} agents (the most a bundle holds; agents as bench/harness/bot.ts seeds them, instructions of about 390 characters) and its default supervisor, ` +
      `exported through the API: **${kib(yamlBytes)} of YAML** (\`Accept: application/yaml\`), ${kib(Buffer.byteLength(guide.json))} of JSON. ` +
      `Read by the product's reader in ${fmt.ms(timeOf(() => answerOf(guide.yaml)))} ms; \`POST …/bundle/plan\` of it through the local gateway, median ${fmt.ms(guide.planMs)} ms. ` +
      `The byte bound, ${fmt.int(bound)} B (1 MiB), is ${(bound / yamlBytes).toFixed(2)} times that export: room for agents with longer texts, and a larger bundle goes as JSON (6 MB).`,
    '### The worst shapes at the bound',
    '| shape | bytes | ms | the reader answers |\n|---|---:|---:|---|\n' + shapes.join('\n'),
    `Bounds (shared/app/bundles/bundle.limits.ts): ${fmt.int(bound)} bytes (413, before parsing), ${fmt.int(yamlBundleLimits.scalars)} keys and values (413, counted as the text is lexed), ` +
      `collections nested ${yamlBundleLimits.depth} deep and ${yamlBundleLimits.aliases} aliases (400, as the text is parsed), ${yamlBundleLimits.aliases} nodes expanded from aliases (\`yaml\`'s \`maxAliasCount\`), ` +
      "and duplicate keys found in one pass rather than by `yaml`'s `uniqueKeys`, which compares each key of a map with every other.",
    "### `yaml`'s own duplicate-key check",
    "Flat maps (`k1: 1` lines) of growing size: `yaml`'s `parse` with its defaults (`uniqueKeys: true`, 1 run), and the product's reader (3 runs).\n\n" +
      "| size | `yaml` defaults (ms) | reader (ms) |\n|---|---:|---:|\n" +
      quadratic.join('\n'),
  ].join('\n\n');
}

/** Puts `text` in place of the file's YAML section (or at its end), leaving the rest as `npm run bench:bundles` wrote it. */
function writeSection(text: string): string {
  const file = join(projectRoot, 'bench', 'bundles-figures.md');
  const current = readFileSync(file, 'utf8');
  const at = current.indexOf(SECTION);
  const next = at < 0 ? -1 : current.indexOf('\n## ', at + SECTION.length);
  const before = at < 0 ? `${current.trimEnd()}\n\n` : current.slice(0, at);
  const after = next < 0 ? '' : current.slice(next + 1);
  writeFileSync(file, `${before}${text}\n${after ? `\n${after}` : ''}`);
  return file;
}

async function main(): Promise<void> {
  const [started, loadBefore] = [performance.now(), loadavg().map((value) => value.toFixed(2)).join(' / ')];
  const guide = await exportGuide();
  const text = section(guide, started, loadBefore);
  console.log(text);
  if (!quick) console.error(`Written to ${writeSection(text)}`);
  await cleanUp();
}

main().catch(async (error: unknown) => {
  console.error(`Benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await cleanUp();
  process.exit(1);
});
