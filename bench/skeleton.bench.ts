/** `npm run bench` (docs/benchmarks.md#walking-skeleton): bundle sizes, module load against a bare bundle of the same SDK clients, gateway latency and single reads. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build, version as esbuild } from 'esbuild';
import { passwordGrant } from '../infra/stack-target';
import { buildBundles, deployedMode, esbuildOptions, formatBundleTable, jsOutput, modeDescription, packagesIn, type BundleReport } from '../scripts/build-bundles';
import { keys } from '../shared/adapters/store/keys';
import { getItem, getItems, getItemsByKey } from '../shared/adapters/store/table';
import { listAgentSummaries, type AgentRecord } from '../shared/domain/agents/agent.repository';
import { callerKeys, type ItemKey } from '../shared/domain/requests/prefetch.repository';
import { domainStampKey } from '../shared/domain/sessions/credential-stamp.repository';
import { benchmark, type Context } from './harness/benchmark';
import { API_AND_RAW, check, comparisonTable, fmt, percentile, series, seriesTable, table, type Comparison, type Figures } from './harness/series';
import { accessToken, apiCall, apiGet, directHandler, orgUrl, placeholderConfig, projectRoot, statusOfGet, tempDir } from './harness/stack';

const [MODE, LOAD_AIM, READ_AIM] = [deployedMode(), 1.2, 2];
const LOAD_PROBE = 'const { performance } = require("node:perf_hooks"); const t = performance.now(); require(process.argv[1]); process.stdout.write(String(performance.now() - t));';
// As Lambda's runtime: no NODE_OPTIONS (infra/cloud/service-function.ts sets none), and the SDK found on NODE_PATH (here the repository's copy).
const LOAD_ENV = { PATH: process.env.PATH, NODE_PATH: join(projectRoot, 'node_modules'), ...placeholderConfig, POWERTOOLS_SERVICE_NAME: 'bench' };
/** Milliseconds `require(file)` takes in a fresh node process. */
function loadMs(file: string): number {
  const result = spawnSync(process.execPath, ['-e', LOAD_PROBE, file], { env: LOAD_ENV, encoding: 'utf8', timeout: 30_000 });
  check(result.status === 0 && Number(result.stdout) >= 0, `Loading ${file} failed: ${(result.stderr || result.error?.message || '').trim().split('\n')[0]}; \`NODE_PATH=node_modules node -e "require('${file}')"\` shows the whole error`);
  return Number(result.stdout);
}

/** The SDK modules a bundle requires at load (the runtime's copy) or carries, then a bundle of only those, built with the same esbuild options. */
async function bareBundle(report: BundleReport) {
  const { imports } = jsOutput(report.metafile);
  const sdk = [...new Set([...imports.filter((i) => i.external && i.kind !== 'dynamic-import').map((i) => i.path), ...packagesIn(report.metafile)])].filter((name) => /^@(aws-sdk|smithy)\//.test(name)).sort();
  const file = join(report.file, '..', '..', `${report.group}.bare.js`);
  await build({ ...esbuildOptions(MODE), stdin: { contents: sdk.map((name) => `require(${JSON.stringify(name)});`).join('\n'), resolveDir: projectRoot }, outfile: file });
  return { report, sdk, file, function: [] as number[], bare: [] as number[] };
}

/** The first demo ADMIN's token, a user and an agent to read, and the bundles built (while the stack idles). */
async function data({ stack: { info }, size }: Context) {
  const [org, bundles] = [info.orgs[0]!, await buildBundles({ mode: MODE, dir: tempDir('bench-bundles-') })];
  const [token, bot] = [await accessToken(info, org), org.environments[0]!.bots[0]!];
  const permissions = [{ environmentUuid: org.environments[0]!.uuid, botUuid: bot.uuid }];
  const user = JSON.parse(await apiCall('POST', `${orgUrl(info, org.uuid)}/users`, token.bearer, { name: 'Rhea Reader', email: 'rhea.reader@bench.example', role: 'VIEWER', permissions })) as { uuid: string };
  const agent = (await listAgentSummaries(bot.uuid)).find((summary) => summary.kind === 'AGENT')!.uuid;
  const { personaUuid, functionUuids, collectionUuids } = (await getItem<AgentRecord>(keys.agent(bot.uuid, agent)))!;
  const needs = [keys.agent(bot.uuid, agent), keys.persona(bot.uuid, personaUuid), ...functionUuids.map((f) => keys.botFunction(bot.uuid, f)), ...collectionUuids.map((c) => keys.collection(bot.uuid, c))];
  const base = `${info.apiUrl}/${info.generativeSubpath}/org/${org.uuid}/env/${permissions[0]!.environmentUuid}/bot/${bot.uuid}`;
  const userUrl = `${orgUrl(info, org.uuid)}/users/${user.uuid}`;
  const direct = await directHandler('users', new URL(userUrl).pathname);
  return { org, token, bundles, loads: await Promise.all(bundles.map(bareBundle)), grants: size(200, 20), reads: size(500, 50), single: size(300, 30), user: user.uuid, userUrl, direct, agent, needs, base, bot: bot.uuid };
}
type Data = Awaited<ReturnType<typeof data>>;

/** Password grants, then current-user reads, each on its own; then single reads through the API and raw, interleaved. */
function latency(d: Data, { stack: { info } }: Context) {
  const signIn = () => passwordGrant(info, d.org.name, d.org.admin.email, d.org.admin.password).then(async (r) => (await r.text(), r.status));
  const answers = (uuid: string) => (body: unknown) => check((JSON.parse(body as string) as { uuid: string }).uuid === uuid, `The API answered another item than ${uuid}: check the route`);
  const found = (item: unknown) => check(item, 'The raw GetItem found nothing: check the key against what the product wrote');
  // The keys of the user read's one BatchGetItem (`shared/app/auth/caller.ts`): the token's session, the caller, the stamp of its e-mail's domain, and the user read.
  const batchOf = memoByToken((bearer) => {
    const claims = JSON.parse(Buffer.from(bearer.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sid: string; sub: string; email: string };
    return [callerKeys.session(claims.sid), callerKeys.user(d.org.uuid, claims.sub), domainStampKey(d.org.uuid, claims.email), keys.userKey(d.org.uuid, d.user)].filter((key): key is ItemKey => key !== undefined);
  });
  // The grants below sign the same ADMIN in 200 times, past the 100 sessions a user keeps: the reads after them sign in afresh once.
  let renewed = false;
  const afterGrants = async () => {
    if (!renewed) {
      renewed = true;
      await d.token.renew();
    }
    await d.token.refresh();
  };
  return [
    { series: [series('token', 'POST …/protocol/openid-connect/token (password grant)', signIn, (status) => check(status === 200, `The token endpoint answered ${status}: see the stack's errors below`))], schedule: { warmUp: 5, block: d.grants, samples: d.grants } },
    { series: [series('user', 'GET /{user_subpath}/org/{orgUUID}/users/identity-provider', () => apiGet(`${orgUrl(info, d.org.uuid)}/users/identity-provider`, d.token.bearer))], schedule: { warmUp: 5, block: d.reads, samples: d.reads, between: afterGrants } },
    { schedule: { warmUp: 20, block: 10, samples: d.single, between: afterGrants }, series: [
        series('api.user', 'API `GET …/users/{userId}`', () => apiGet(d.userUrl, d.token.bearer), answers(d.user)),
        series('raw.user', 'raw `GetItem` of the same user item', () => getItem(keys.userKey(d.org.uuid, d.user)), found),
        series('api.agent', 'API `GET …/agents/{uuid}`', () => apiGet(`${d.base}/agents/${d.agent}`, d.token.bearer), answers(d.agent)),
        series('raw.agent', 'raw `GetItem` of the same agent item', () => getItem(keys.agent(d.bot, d.agent)), found),
        series('raw.needs', `raw \`BatchGetItem\` of the agent and its ${d.needs.length - 1} references (what its answer shows)`, () => getItems(d.needs), (items) => check((items as unknown[]).length === d.needs.length, 'The raw BatchGetItem found fewer items than asked: check the keys')),
    ] },
    // The user read taken apart, in a group of its own after the comparison, so that the function run in this process never shares a block with the aim's raw read.
    { schedule: { warmUp: 20, block: 10, samples: d.single, between: afterGrants }, series: [
        series('parts.api', 'API `GET …/users/{userId}` (again, beside its parts)', () => apiGet(d.userUrl, d.token.bearer), answers(d.user)),
        series('parts.raw', 'raw `GetItem` of the same user item (again, beside its parts)', () => getItem(keys.userKey(d.org.uuid, d.user)), found),
        series('parts.batch', "raw `BatchGetItem` of the user read's batch: the session, the caller, its domain's stamp and the user", () => getItemsByKey(batchOf(d.token.bearer)), (items) => check((items as Map<string, unknown>).size >= 3, 'The raw BatchGetItem found neither the session nor the caller: check the keys against what the product wrote')),
        series('parts.direct', 'the users function called in the bench process (no HTTP, no gateway) for the same read', () => d.direct(d.token.bearer), (result) => check((result as { statusCode: number }).statusCode === 200 && JSON.parse((result as { body: string }).body).uuid === d.user, `The handler answered ${JSON.stringify(result).slice(0, 200)}`)),
        series('parts.refused', 'API `GET …/users/{userId}` without a token (401)', () => statusOfGet(d.userUrl), (status) => check(status === 401, `The read without a token answered ${status}, not 401: check the route`)),
    ] },
  ];
}

/** `make(bearer)`, made again only when the token changes. */
function memoByToken<T>(make: (bearer: string) => T): (bearer: string) => T {
  let last: { bearer: string; value: T } | undefined;
  return (bearer) => (last?.bearer === bearer ? last.value : (last = { bearer, value: make(bearer) }).value);
}

/** Module loads, the stack stopped first so that nothing else runs beside them: function and bare bundle alternating, in rounds over every function. */
async function measure({ loads }: Data, { size, progress, stack }: Context) {
  await stack.stop({ strict: true });
  const runs = size(21, 5);
  for (let round = 0; round < runs; round++) {
    progress(`module loads, round ${round + 1} of ${runs}`);
    for (const load of loads) for (const side of round % 2 ? (['bare', 'function'] as const) : (['function', 'bare'] as const)) load[side].push(loadMs(side === 'bare' ? load.file : load.report.file));
  }
  return runs;
}

const reads: Comparison[] = [{ label: '`GET …/users/{userId}` ÷ `GetItem` (the reads it needs)', api: 'api.user', raw: 'raw.user' }, { label: '`GET …/agents/{uuid}` ÷ `GetItem` of the agent', api: 'api.agent', raw: 'raw.agent' },
  { label: '`GET …/agents/{uuid}` ÷ `BatchGetItem` of the agent and its references (the reads it needs)', api: 'api.agent', raw: 'raw.needs' }];

/** The user read's p50 as the raw `GetItem` and what each step adds on top: the batch's other keys, the function's chain, HTTP and the stack's process. */
function readParts(f: Figures) {
  const [read, raw, batch, direct] = [f.p50('parts.api'), f.p50('parts.raw'), f.p50('parts.batch'), f.p50('parts.direct')];
  return [
    { part: 'raw `GetItem` of the user (the reads it needs)', ms: raw },
    { part: 'the batch\'s other three keys (raw batch − raw `GetItem`)', ms: batch - raw },
    { part: 'the function\'s chain and use case (called in the bench process − raw batch)', ms: direct - batch },
    { part: 'HTTP, the local gateway and the stack\'s process (through the stack − called in the bench process)', ms: read - direct },
    { part: 'beside it: a read without a token through the stack (HTTP, the gateway, the chain up to its 401)', ms: f.p50('parts.refused') },
    { part: 'the read through the stack', ms: read },
  ];
}

benchmark<Data, number>({
  title: 'Walking skeleton: speed and size', stack: true, data, series: latency, measure,
  report: ({ data: { bundles, loads }, measured: runs, series: list, f }) => {
    const ratio = (l: (typeof loads)[number]) => percentile(l.function, 50) / percentile(l.bare, 50);
    return {
      'Bundle sizes': [
        `Each function bundled by \`scripts/build-bundles.ts\` (esbuild ${esbuild}) with the options CDK NodejsFunction uses for infra/cloud/service-function.ts: ${modeDescription(MODE)}. 1 KiB = 1024 bytes. The size target, "250 KB", is read as 250,000 bytes; "largest" columns come from the esbuild metafile.`,
        formatBundleTable(bundles),
      ],
      'Module load against a bare bundle of the same SDK clients': [
        `Per function, its bundle and a bare bundle that only \`require\`s the AWS SDK modules the function's bundle requires (esbuild's metafile: its external \`@aws-sdk/*\` and \`@smithy/*\` imports), built with the same esbuild options; each timed as \`require(<bundle>)\` in ${runs} fresh \`node\` processes (the deployed functions set no \`NODE_OPTIONS\`: the logger maps logged stacks itself), function and bare alternating, in rounds over every function, the stack stopped. Configuration: placeholders. The SDK resolves through \`NODE_PATH\` to the repository's node_modules, as Lambda's runtime resolves its own copy; the runtime's bootstrap is not included. Aim: function median within ${LOAD_AIM}× the bare median.`,
        table(loads, [
          ['function', (l) => l.report.group], ['index.js bytes', (l) => fmt.int(l.report.bytes), 'right'], ['SDK modules', (l) => l.sdk.map((name) => name.replace(/^@aws-sdk\/(client-)?/, '')).join(', ') || '–'],
          ['function p50 / p95 ms', (l) => `${fmt.ms(percentile(l.function, 50))} / ${fmt.ms(percentile(l.function, 95))}`, 'right'], ['bare p50 ms', (l) => fmt.ms(percentile(l.bare, 50)), 'right'],
          ['function ÷ bare', (l) => fmt.ratio(ratio(l)), 'right'], [`within ${LOAD_AIM}×`, (l) => (l.sdk.length === 0 ? 'no SDK client: nothing to compare' : ratio(l) <= LOAD_AIM ? 'yes' : '**no**')],
        ]),
      ],
      'Latency through the local gateway': [
        `The benchmark's own stack, freshly seeded; requests one at a time from one client with keep-alive. Token: password grant of the first demo organization's ADMIN; current user, and the single reads, with an access token from that grant.`,
        seriesTable(list, [['max ms', (s) => fmt.ms(Math.max(...s.samples)), 'right']]),
      ],
      'Single reads: API against raw `GetItem`': [
        `${API_AND_RAW} The user read is of a VIEWER made for the bench, the agent read of the first demo bot's first agent; the same item every time. Aim: each read within ${READ_AIM}× the raw reads it needs, at p50.`,
        comparisonTable(f, reads, [[`${READ_AIM}× aim`, (c) => (c.raw === 'raw.agent' ? 'context' : f.p50(c.api) / f.p50(c.raw) <= READ_AIM ? 'met at p50' : '**not met** at p50')]]),
      ],
      "Where the user read's time goes": [
        `The user read's p50 taken apart by series measured after the comparison above, interleaved with the read and its raw \`GetItem\` measured again: differences of medians, so an estimate. The batch is the authenticated call's one \`BatchGetItem\` (\`shared/app/auth/caller.ts\`): the token's session, the caller and its e-mail domain's stamp, read on every call so that an ended session or a deleted user loses access at once, beside the user. The function called in the bench process gets the event the local gateway makes and the stack's configuration, but neither HTTP nor the local stack's process (its gateway, the local IAM check of each AWS call, its pollers and emulators). The read without a token crosses HTTP and the gateway and the chain up to the token check.`,
        table(readParts(f), [['part', (r) => r.part], ['p50 ms', (r) => fmt.ms(r.ms), 'right'], ['share of the read', (r) => fmt.share(r.ms, f.p50('parts.api')), 'right']]),
      ],
    };
  },
});
