/** `npm run bench:yaml` (docs/benchmarks.md#yaml-bundle-bodies): the bounds of a YAML bundle body, a section of bench/bundles-figures.md. */
import { parse as parseYaml } from 'yaml';
import { readBundle } from '../shared/app/bundles/bundle-format';
import { yamlBundleLimits } from '../shared/app/bundles/bundle.limits';
import { MAX_BUNDLE_ENTRIES } from '../shared/app/bundles/bundle.schemas';
import { BadRequestError, PayloadTooLargeError } from '../shared/kernel/errors';
import { benchmark, type Context } from './harness/benchmark';
import { instructionsLength, seedBot } from './harness/seed';
import { check, fmt, medianMs, series, table } from './harness/series';
import { apiCall } from './harness/stack';

const bytes = (count: number) => `${fmt.int(count)} B (${fmt.kib(count)})`;

/** How the product's reader answers a body: read, or the status and code it refuses it with, and why. */
function answerOf(text: string): string {
  try {
    readBundle(text, 'application/yaml');
    return 'read';
  } catch (error) {
    if (!(error instanceof PayloadTooLargeError || error instanceof BadRequestError)) throw error;
    return `${error instanceof PayloadTooLargeError ? 413 : 400} \`${error.code}\`: ${error.message.split(':')[0]!.replace(/ \(line \d+, column \d+\)/, '')}`;
  }
}

/** `unit(i)` repeated until the text (after `head`) is as long as `bytes` allows, then `tail`. */
function upTo(bytes: number, head: string, unit: (i: number) => string, tail = ''): string {
  let [text, i] = [head, 0];
  for (let next = unit(0); text.length + next.length + tail.length <= bytes; next = unit(++i)) text += next;
  return text + tail;
}
const flatMap = (bytes: number) => upTo(bytes, 'formatVersion: 1\n', (i) => `k${i.toString(36)}: 1\n`);

/** The worst shapes of YAML at the byte bound (each a little under it), by what makes each costly. */
function worstShapes(bound: number, exported: string, agents: number): [string, string][] {
  const agentsAt = exported.indexOf('\n  - role:');
  const agent = exported.slice(agentsAt, exported.indexOf('\n  - role:', agentsAt + 1));
  return [
    [`the ${agents}-agent export, its agents repeated up to the bound`, upTo(bound, exported, () => agent)],
    ['flat map, block style (`k1: 1` lines)', flatMap(bound)],
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

/** A bot of the most agents a bundle holds, exported as YAML and as JSON through the API. */
async function data({ size, progress, stack }: Context) {
  const [agents, runs] = [size(MAX_BUNDLE_ENTRIES, 50), size(7, 3)];
  progress(`seeding a bot of ${agents} agents`);
  const { base, token } = await seedBot(stack, agents, 'YAML bound');
  const yaml = await apiCall('GET', `${base}/bundle`, token.bearer, undefined, { accept: 'application/yaml' });
  check(yaml.startsWith('formatVersion: 1\n'), 'The export is not YAML: see what `GET …/bundle` answers with `Accept: application/yaml`');
  return { agents, runs, yaml, json: await apiCall('GET', `${base}/bundle`, token.bearer), base, token };
}
type Data = Awaited<ReturnType<typeof data>>;

/** The reader on the export, on each worst shape and on flat maps beside `yaml`'s defaults, in this process alone. */
async function measure(d: Data, { progress, stack }: Context) {
  await stack.stop();
  progress('timing the worst shapes at the bound');
  const shapes = worstShapes(yamlBundleLimits.bytes, d.yaml, d.agents).map(([label, text]) => ({ label, bytes: Buffer.byteLength(text), ...medianMs(() => answerOf(text), d.runs) }));
  progress("timing yaml's own duplicate-key check");
  const flatMaps = [32, 64, 128, 256].map((kib) => [kib, flatMap(kib * 1024)] as const).map(([kib, text]) => ({ kib, yaml: medianMs(() => parseYaml(text, { maxAliasCount: 100 }), 1).ms, reader: medianMs(() => answerOf(text), 3).ms }));
  return { exportMs: medianMs(() => answerOf(d.yaml), d.runs).ms, shapes, flatMaps };
}

benchmark<Data, Awaited<ReturnType<typeof measure>>>({
  into: 'bundles', title: 'YAML bodies: the bound and the parse', stack: true, data, measure,
  series: (d) => [{
    schedule: { warmUp: 1, block: d.runs, samples: d.runs, between: d.token.refresh },
    series: [series('plan', 'plan', () => apiCall('POST', `${d.base}/bundle/plan`, d.token.bearer, d.yaml, { 'content-type': 'application/yaml' }), (body) =>
      check((JSON.parse(body as string) as { changes: unknown[] }).changes.length === d.agents + 1, 'The plan does not list every agent and the supervisor: see its answer'))],
  }],
  report: ({ data: d, measured: m, f }) => {
    const [bound, yamlBytes] = [yamlBundleLimits.bytes, Buffer.byteLength(d.yaml)];
    return {
      'The guide: the largest bundle the API exports': [
        `Times are medians of ${d.runs} runs after one untimed (the duplicate-key table: 1 and 3 runs), in the bench process once the stack has stopped, of the product's reader (\`readBundle\` of shared/app/bundles/bundle-format.ts, what \`…/bundle/plan\` and \`…/bundle/apply\` run before validation), so without HTTP, authentication or validation.`,
        `A fresh local stack, a bot of ${d.agents} agents (${d.agents === MAX_BUNDLE_ENTRIES ? 'the most a bundle holds' : 'reduced from the most a bundle holds'}; agents as bench/harness/seed.ts seeds them, instructions of about ${instructionsLength} characters) and its default supervisor, exported through the API: **${bytes(yamlBytes)} of YAML** (\`Accept: application/yaml\`), ${bytes(Buffer.byteLength(d.json))} of JSON. Read by the product's reader in ${fmt.ms(m.exportMs)} ms; \`POST …/bundle/plan\` of it through the local gateway, median ${fmt.ms(f.p50('plan'))} ms. The byte bound, ${fmt.int(bound)} B (1 MiB), is ${(bound / yamlBytes).toFixed(2)} times that export: room for agents with longer texts, and a larger bundle goes as JSON (6 MB).`,
      ],
      'The worst shapes at the bound': [
        table(m.shapes, [['shape', (s) => s.label], ['bytes', (s) => fmt.int(s.bytes), 'right'], ['ms', (s) => fmt.ms(s.ms), 'right'], ['the reader answers', (s) => s.result]]),
        `Bounds (shared/app/bundles/bundle.limits.ts): ${fmt.int(bound)} bytes (413, before parsing), ${fmt.int(yamlBundleLimits.scalars)} keys and values (413, counted as the text is lexed), collections nested ${yamlBundleLimits.depth} deep and ${yamlBundleLimits.aliases} aliases (400, as the text is parsed), ${yamlBundleLimits.aliases} nodes expanded from aliases (\`yaml\`'s \`maxAliasCount\`), and duplicate keys found in one pass rather than by \`yaml\`'s \`uniqueKeys\`, which compares each key of a map with every other.`,
      ],
      "`yaml`'s own duplicate-key check": [
        "Flat maps (`k1: 1` lines) of growing size: `yaml`'s `parse` with its defaults (`uniqueKeys: true`, 1 run), and the product's reader (3 runs).",
        table(m.flatMaps, [['size', (r) => `${r.kib} KiB`], ['`yaml` defaults (ms)', (r) => fmt.ms(r.yaml), 'right'], ['reader (ms)', (r) => fmt.ms(r.reader), 'right']]),
      ],
    };
  },
});
