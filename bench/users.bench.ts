/**
 * `npm run bench:users`: the users area on an organization of 100,000 users. Every listing shape of
 * `GET /users`, search, quicksearch (warm, and right after a user write) and the single reads through
 * the local gateway, each next to the raw DynamoDB reads of the same data, interleaved; the calls and
 * read units each request makes; the write units of registering one user at 1,000 and at 100,000
 * users. Report: bench/users-figures.md.
 *
 * Options besides the size: `--samples N` (measured requests per cheap series; 200 at full size),
 * `--heavy N` (per series that reads a whole partition; 30).
 */
import { authorizeOrgAdmin } from '../shared/access/org-access';
import { authenticate } from '../shared/auth/caller';
import { keys } from '../shared/store/keys';
import { quickMatches } from '../shared/text/matching';
import { POSTING_PREFIX, prefixOf, wordsIn } from '../shared/users/user-index';
import { listUsers, quicksearchUsers, readUserCount, SHORT_SEARCH_MAX_USERS, type UserListQuery } from '../shared/users/user-queries';
import { registerUser } from '../shared/users/user-registration';
import { getUser, saveUser, type StoredUser } from '../shared/users/user.repository';
import { userPorts } from '../shared/users/user-ports';
import { quicksearchQuerySchema, userListQuerySchema } from '../shared/users/user.schemas';
import { accessToken, apiGet, batchGet, benchmark, bullets, callsTable, check, fmt, getItem, inProcessGateway, percentile, projection, query, recordCalls, seedOrganization, series, seriesTable, sum, table, timed, type Call, type Context, type Run } from './harness';
import { checkIndex, searchTermsFor, seedUsers } from './users.data';

const [QUICK_TERM, AIM_P95_MS, AIM_RCU, AIM_RATIO] = ['jose gar', 150, 10, 2];
const SMALL_ORG = 1_000;
const WRITES = 10;
const quickPath = `/quicksearch?name=${encodeURIComponent(QUICK_TERM)}`;

type Shape = { key: string; label: string; qs: string; heavy?: boolean };

/** Two organizations seeded (the index checked), an ADMIN's token, and every listing shape with the page the product returns for it. */
async function data({ size, option, mark, progress, stack }: Context) {
  const n = { users: size(100_000, 1_000), samples: Number(option('samples') ?? size(200, 30)), heavy: Number(option('heavy') ?? size(30, 10)), warmUp: size(10, 3) };
  // Organizations with a real ADMIN (Cognito and all); the other users written straight to the store.
  const org = (name: string) => seedOrganization(name, { adminEmail: `admin@${name}.example`, adminName: 'Bea Bench', environment: 'Production', bot: 'Support bot' });
  const [big, small] = [await org('bench-users'), await org('bench-users-small')];
  progress(`seeding ${fmt.int(n.users - 1)} users`);
  const seeded = await seedUsers(big, n.users - 1, progress);
  const smallSeeded = await seedUsers(small, SMALL_ORG - 1, progress, 7);
  mark('after seeding');
  progress('checking the seeded index');
  const index = await checkIndex(big.uuid, seeded);
  const { users } = seeded;
  const token = await accessToken(stack.info, big);
  const caller = await authenticate(token.bearer);
  const scope = await authorizeOrgAdmin(caller, big.uuid);
  const searchTerms = searchTermsFor(users, seeded.firstNames);
  // Two words of 2 characters (the first letters of an active user's first and last names): no posting narrows it.
  const shortTerms = ((words) => `${words[0]!.slice(0, 2)} ${words.at(-1)!.slice(0, 2)}`)(wordsIn(users.find((u) => u.status === 'ACTIVE')!.name));
  const shortRefused = seeded.active + 1 > SHORT_SEARCH_MAX_USERS;
  const shapes = listingShapes(searchTerms, shortTerms, shortRefused, seeded.active);
  const expected = new Map<string, { uuids: string; total: number }>();
  for (const shape of shapes) {
    const { users: page, total } = await listUsers(scope, parse(shape.qs));
    check(page.length > 0, `${shape.label} returned an empty page`);
    expected.set(shape.key, { uuids: page.map((u) => u.uuid).join(), total });
  }
  const quick = quicksearchQuerySchema.parse({ name: QUICK_TERM });
  const names = await quicksearchUsers(scope, quick.name, quick.limit);
  check(names.length > 0, 'The quicksearch term matches nobody');
  const targets = Array.from({ length: n.warmUp + Math.max(n.samples, n.heavy) }, () => users[Math.floor(Math.random() * users.length)]!);
  const base = `${stack.info.apiUrl}/${stack.info.userSubpath}/org/${big.uuid}/users`;
  return { n, big, small, seeded, smallSeeded, index, users, token, caller, searchTerms, shortTerms, shortRefused, shapes, expected, quick, names, targets, base };
}
type Data = Awaited<ReturnType<typeof data>>;

const parse = (qs: string) => userListQuerySchema.parse(Object.fromEntries(new URLSearchParams(qs))) as UserListQuery;

/** Every listing shape; past SHORT_SEARCH_MAX_USERS active users a search without a long word is refused (422): timed apart. */
function listingShapes(searchTerms: string, shortTerms: string, shortRefused: boolean, active: number): Shape[] {
  // Page 1,000 of 20 at full size; on a smaller organization as deep as its active users allow.
  const deepPage = Math.min(1000, Math.floor(active / 20) - 1);
  return [
    { key: 'default', label: 'default page (page 0, 5 lines, createdAt DESC, ACTIVE)', qs: '' },
    { key: 'all', label: 'status=ALL (two partitions merged)', qs: 'status=ALL' },
    { key: 'deleted', label: 'status=DELETED', qs: 'status=DELETED' },
    { key: 'createdAsc', label: 'createdAt ASC', qs: 'orderBy=createdAt&direction=ASC' },
    ...(['name', 'email', 'company'] as const).flatMap((order) =>
      (['ASC', 'DESC'] as const).map((direction) => ({ key: `${order}${direction}`, label: `${order} ${direction}`, qs: `orderBy=${order}&direction=${direction}` })),
    ),
    { key: 'deep', label: `deep page: page ${fmt.int(deepPage)} of 20 by name`, qs: `orderBy=name&direction=ASC&page=${deepPage}&linesPerPage=20`, heavy: true },
    { key: 'search', label: `searchTerms=${searchTerms}`, qs: `searchTerms=${encodeURIComponent(searchTerms)}` },
    ...(shortRefused ? [] : [{ key: 'short', label: `searchTerms=${shortTerms} (every word under ${POSTING_PREFIX} characters)`, qs: `searchTerms=${encodeURIComponent(shortTerms)}`, heavy: true }]),
  ];
}

/** The first items of a partition, as a bare Query (no decoding, sorting or merging). */
const firstOf = (pk: string, forward: boolean, limit?: number, attributes?: string[], consistent = false) =>
  query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ScanIndexForward: forward, ...(consistent && { ConsistentRead: true }), ...(attributes && projection(attributes)) }, limit);

/** What the product reads for a listing shape, as bare SDK commands. */
function rawList(d: Data, shape: Shape): { what: string; run: () => Promise<unknown> } {
  const q = parse(shape.qs);
  const statuses = q.status === 'ALL' ? (['ACTIVE', 'DELETED'] as const) : [q.status];
  const longest = [...wordsIn(q.searchTerms ?? '')].sort((a, b) => b.length - a.length)[0];
  const page = () => batchGet(d.expected.get(shape.key)!.uuids.split(',').map((uuid) => keys.userKey(d.big.uuid, uuid)));
  if (longest && longest.length >= POSTING_PREFIX) {
    return { what: `\`Query\` of the postings of \`${prefixOf(longest)}\` → \`BatchGetItem\` of the page's users`, run: async () => [await firstOf(keys.userPostings(d.big.uuid, prefixOf(longest)), true), await page()] };
  }
  if (longest) {
    return { what: `\`Query\` of the whole createdAt partition of ${statuses.join(' and ')} → \`BatchGetItem\` of the page's users`, run: async () => [await Promise.all(statuses.map((s) => firstOf(keys.userListing(d.big.uuid, s, 'createdAt'), true))), await page()] };
  }
  const limit = (q.page + 1) * q.linesPerPage;
  return {
    what: `\`Query\` of the first ${fmt.int(limit)} entries of ${statuses.length} listing partition${statuses.length > 1 ? 's' : ''} ∥ \`GetItem\` of the count → \`BatchGetItem\` of the page's users`,
    run: async () => [await Promise.all([getItem(keys.userCount(d.big.uuid)), ...statuses.map((s) => firstOf(keys.userListing(d.big.uuid, s, q.orderBy), q.direction === 'ASC', limit))]), await page()],
  };
}

/** A user write between operations moves the count's version: quicksearch then reloads its names. */
async function writeOneUser(d: Data): Promise<void> {
  const written = d.users.find((u) => u.status === 'ACTIVE')!;
  const seen = (await getUser(d.big.uuid, written.uuid, { consistent: true })) as StoredUser;
  check(await saveUser({ ...seen, updatedAt: new Date().toISOString() }, seen), 'saveUser refused the write');
}

/** The API series and their raw reads: the cheap ones, and the heavy ones (each reads a whole partition or 20,000 entries). */
function timedSeries(d: Data) {
  const api = (url: (i: number) => string) => (i: number, id: string) => apiGet(url(i), d.token.bearer, id);
  const listing = d.shapes.flatMap((shape) => {
    const raw = rawList(d, shape);
    const want = d.expected.get(shape.key)!;
    const verify = (body: unknown) => {
      const page = JSON.parse(body as string) as { content: { uuid: string }[]; totalElements: number };
      check(page.content.map((u) => u.uuid).join() === want.uuids && page.totalElements === want.total, `GET /users?${shape.qs} returned another page`);
    };
    return [series(`api.${shape.key}`, `API \`GET /users${shape.qs ? `?${decodeURIComponent(shape.qs)}` : ''}\``, api(() => `${d.base}?${shape.qs}`), verify), series(`raw.${shape.key}`, `raw: ${raw.what}`, raw.run)];
  });
  const heavyKeys = new Set(d.shapes.filter((s) => s.heavy).flatMap((s) => [`api.${s.key}`, `raw.${s.key}`]));
  const quickApi = api(() => `${d.base}${quickPath}`);
  const sameNames = (body: unknown) => check(body === JSON.stringify(d.names), 'Quicksearch returned other names');
  const target = (i: number) => d.targets[i]!.uuid;
  const count = () => getItem(keys.userCount(d.big.uuid));
  const quick = [
    series('api.quick', `API \`GET /users/quicksearch?name=${QUICK_TERM}\`, warm container`, quickApi, sameNames),
    series('raw.quick', 'raw: `GetItem` of the count (strongly consistent)', count),
  ];
  const reload = [
    series('api.reload', `API \`GET /users/quicksearch?name=${QUICK_TERM}\` right after a user write (names reloaded)`, quickApi, sameNames, () => writeOneUser(d)),
    series('raw.reload', 'raw: `GetItem` of the count → `Query` of every active user\'s name (ACTIVE by name, projected, strongly consistent)', async () => [await count(), await firstOf(keys.userListing(d.big.uuid, 'ACTIVE', 'name'), true, undefined, ['name'], true)]),
  ];
  const single = [
    series('api.get', `API \`GET /users/{userId}\` (a random user of the ${fmt.int(d.users.length)})`, api((i) => `${d.base}/${target(i)}`), (body, i) => check(JSON.parse(body as string).uuid === target(i), 'Another user')),
    series('raw.get', 'raw: `GetItem` of the same user item', (i) => getItem(keys.userKey(d.big.uuid, target(i))), (item, i) => check((item as { uuid?: string })?.uuid === target(i), 'GetItem missed')),
    series('api.idp', 'API `GET /users/identity-provider` (the caller itself)', api(() => `${d.base}/identity-provider`)),
    series('raw.idp', 'raw: `GetItem` of the caller', () => getItem(keys.userKey(d.big.uuid, d.caller.user.uuid))),
  ];
  // Past the bound a short search is refused: its status and time, 10 times.
  const refusal = () => fetch(`${d.base}?searchTerms=${encodeURIComponent(d.shortTerms)}`, { headers: { authorization: d.token.bearer } }).then(async (r) => (await r.text(), r.status));
  const refused = d.shortRefused ? [series('api.refused', `API \`GET /users?searchTerms=${d.shortTerms}\` (refused: 422)`, refusal, (status) => check(status === 422, `A short search answered ${status}, not 422`))] : [];
  return { cheap: [...listing.filter((s) => !heavyKeys.has(s.key)), ...quick, ...single], heavy: [...listing.filter((s) => heavyKeys.has(s.key)), ...reload], refused };
}

/** Calls and units of each request: the same request sent to the users handler running in this process. */
async function recordedCalls(d: Data, { progress, stack }: Context) {
  progress('recording calls and units');
  const local = await inProcessGateway(['users']);
  const localBase = `${local.url}/${stack.info.userSubpath}/org/${d.big.uuid}/users`;
  const recorded = async (path: string) => {
    await d.token.refresh();
    return recordCalls(() => apiGet(`${localBase}${path}`, d.token.bearer));
  };
  const operations: { key: string; label: string; calls: Call[] }[] = [];
  for (const shape of d.shapes) operations.push({ key: shape.key, label: shape.label, calls: await recorded(`?${shape.qs}`) });
  await recorded(quickPath);
  operations.push({ key: 'quick', label: 'quicksearch, warm', calls: await recorded(quickPath) });
  await writeOneUser(d);
  operations.push({ key: 'reload', label: 'quicksearch after a user write', calls: await recorded(quickPath) });
  operations.push({ key: 'get', label: '`GET /users/{userId}`', calls: await recorded(`/${d.users[0]!.uuid}`) });
  operations.push({ key: 'idp', label: '`GET /users/identity-provider`', calls: await recorded('/identity-provider') });
  await local.close();
  return operations;
}

/** Writing one user at both sizes: the same user shape registered (claim, Cognito, transaction), `WRITES` times each. */
async function writeUnits(d: Data, { progress }: Context) {
  progress('registering users at both sizes');
  const ports = userPorts();
  const writes: { label: string; ms: number[]; calls: Call[][] }[] = [];
  for (const [label, org] of [[`the small organization (${fmt.int(SMALL_ORG)} users)`, d.small], [`the large one (${fmt.int(d.n.users)} users)`, d.big]] as const) {
    const write = { label, ms: [] as number[], calls: [] as Call[][] };
    for (let i = 0; i < WRITES; i++) {
      const user = { orgUuid: org.uuid, name: 'María José García-López', email: `maria.garcia.${i}@grupoandaluz.example`, password: `Bench-${i}-pw`, role: 'VIEWER' as const, permissions: [org.permission], company: 'Grupo Andaluz de Logística' };
      const [ms, calls] = await timed(() => recordCalls(() => registerUser(user, ports.identityProvider)));
      write.ms.push(ms);
      write.calls.push(calls);
    }
    writes.push(write);
  }
  const count = await readUserCount(d.big.uuid, { consistent: true });
  check(count.ACTIVE === d.index.expectedActive + WRITES, `After ${WRITES} registrations the count says ${count.ACTIVE} ACTIVE`);
  return writes;
}

async function measure(d: Data, context: Context) {
  return { operations: await recordedCalls(d, context), writes: await writeUnits(d, context) };
}
type Measured = Awaited<ReturnType<typeof measure>>;
type UsersRun = Run<Data, Measured>;

const rcu = (calls: Call[]) => sum(calls.map((c) => c.read));
const median = (values: number[]) => percentile(values, 50);
const transaction = (calls: Call[]) => calls.filter((c) => c.command === 'TransactWriteItems');
/** Medians of one organization's registrations: the transaction's items and the WCU reported for it, all WCU, time. */
function written({ label, ms, calls }: Measured['writes'][number]) {
  const [items, tx, wcu] = [(c: Call[]) => sum(transaction(c).map((x) => x.keys)), (c: Call[]) => sum(transaction(c).map((x) => x.write)), (c: Call[]) => sum(c.map((x) => x.write))].map((of) => median(calls.map(of)));
  return `into ${label} a transaction of **${items} items** (DynamoDB Local reports ${tx} WCU for it; DynamoDB charges a transaction 2 WCU per item and KB, so at least ${2 * items!}), ${wcu} WCU in all, ${fmt.ms(median(ms))} ms median`;
}

function summary({ data: d, measured: { operations, writes }, f }: UsersRun) {
  const { p50, p95 } = f;
  const opOf = (key: string) => operations.find((o) => o.key === key);
  const rows = [
    ...d.shapes.map((s) => ({ key: s.key, label: s.label, listing: true })),
    { key: 'quick', label: `quicksearch \`${QUICK_TERM}\`, warm container`, listing: true },
    { key: 'reload', label: `quicksearch \`${QUICK_TERM}\` right after a user write`, listing: true },
    { key: 'get', label: '`GET /users/{userId}`', listing: false },
    { key: 'idp', label: '`GET /users/identity-provider`', listing: false },
  ];
  const both = (key: string) => `${fmt.ms(p50(key))} / ${fmt.ms(p95(key))}`;
  const met = (ok: boolean, aim: string) => `${aim}: ${ok ? 'met' : '**not met**'}`;
  const aim = (r: (typeof rows)[number]) => (r.listing ? met(p95(`api.${r.key}`) <= AIM_P95_MS, `p95 ≤ ${AIM_P95_MS} ms`) : met(p50(`api.${r.key}`) / p50(`raw.${r.key}`) <= AIM_RATIO, `÷ raw ≤ ${AIM_RATIO}×`));
  const defaultRcu = rcu(opOf('default')!.calls);
  return [
    table(rows, [
      ['request', (r) => r.label],
      ['n', (r) => f.get(`api.${r.key}`).samples.length, 'right'],
      ['API p50 / p95 ms', (r) => both(`api.${r.key}`), 'right'],
      ['raw p50 / p95 ms', (r) => both(`raw.${r.key}`), 'right'],
      ['API ÷ raw p50', (r) => fmt.ratio(p50(`api.${r.key}`) / p50(`raw.${r.key}`)), 'right'],
      ['RCU per request', (r) => ((o) => (o ? Number(rcu(o.calls).toFixed(1)) : '–'))(opOf(r.key)), 'right'],
      ['aim', aim],
    ]),
    bullets([
      `Default page: ${Number(defaultRcu.toFixed(1))} RCU per request (aim ≤ ${AIM_RCU}: ${defaultRcu <= AIM_RCU ? 'met' : '**not met**'}); its reads do not depend on the organization's size (the first 5 entries of one partition, the count, 5 users).`,
      `Writing one user (\`registerUser\`: e-mail claim, Cognito, one transaction), ${WRITES} times into each organization, the same name, e-mail shape and company: ${writes.map(written).join('; ')}.`,
    ]),
  ];
}

function setup({ data: d, groupMs, f }: UsersRun) {
  const { users, seeded, index } = d;
  const rate = (count: number) => fmt.int(count / (seeded.ms / 1000));
  return bullets([
    `A fresh local stack (\`infra/local/main.ts --fresh\`, PORT=0): gateway and handler modules in one Node process, DynamoDB Local in a JVM (data on disk), the bench a third process on the same machine.`,
    `Organization \`${d.big.name}\` made by \`createOrganization\` (its ADMIN registered in cognito-local; the bench signs in with a password grant), one environment and bot. The other ${fmt.int(users.length)} users written straight into the table as the product stores them (\`storedItemsOf\` in bench/users.data.ts: the user item with \`countedStatus\`, the items of \`indexWrites(user, undefined)\`, the e-mail claim marked done; no Cognito account, which no measured operation reads): ${fmt.int(seeded.items)} items in ${fmt.int(seeded.requests)} \`BatchWriteItem\` requests, 16 in flight, **${fmt.s(seeded.ms)}** (${rate(users.length)} users/s, ${rate(seeded.items)} items/s), then the count item moved once by the totals. A second organization of ${fmt.int(SMALL_ORG)} users the same way (${fmt.s(d.smallSeeded.ms)}).`,
    `Nothing lost (checked in ${fmt.s(index.checkMs)}): the count item says ${fmt.int(index.count.ACTIVE ?? 0)} ACTIVE and ${fmt.int(index.count.DELETED ?? 0)} DELETED (the ADMIN included), and every listing partition holds exactly every user of its status: ${index.partitionSizes.join('; ')}.`,
    `The users: VIEWERs of that bot, seeded names of many languages (${fmt.int(users.filter((u) => /[^\u0020-\u007e]/.test(u.name)).length)} with non-ASCII letters), ${fmt.int(users.filter((u) => u.company).length)} with one of 30 companies, ${fmt.int(index.expectedDeleted)} DELETED.`,
    `\`searchTerms=${d.searchTerms}\` matches ${d.expected.get('search')!.total} active users; \`searchTerms=${d.shortTerms}\` ${d.shortRefused ? `is refused with 422 past ${fmt.int(SHORT_SEARCH_MAX_USERS)} users (10 requests, all 422, median ${fmt.ms(f.p50('api.refused'))} ms)` : fmt.int(d.expected.get('short')!.total)}; quicksearch \`${QUICK_TERM}\` ${users.filter((u) => u.status === 'ACTIVE' && quickMatches(QUICK_TERM, u.name)).length} active users' names (it returns the first ${d.quick.limit}).`,
    `Each cheap series: ${d.n.warmUp} unmeasured requests, then ${d.n.samples} measured, one at a time, in alternating blocks of 10 (${fmt.s(groupMs[0]!)}); the heavy ones (a deep page, a search without a word of ${POSTING_PREFIX} characters, quicksearch after a write: each reads a whole partition or 20,000 entries) 2 then ${d.n.heavy}, blocks of 5 (${fmt.s(groupMs[1]!)}). Quicksearch after a write: before each request, untimed, \`saveUser\` rewrites one user (same fields, new \`updatedAt\`), which moves the count's version. Every API response is checked against what the product returned in process before measuring. Raw reads: the product's document client in the bench process, the same reads the product makes, without its decoding, sorting or merging.`,
  ]);
}

benchmark<Data, Measured>({
  name: 'users',
  script: 'bench:users',
  title: 'Users area on the users index: API against raw DynamoDB reads',
  stack: 'child',
  data,
  series: (d) => {
    const { cheap, heavy, refused } = timedSeries(d);
    const between = d.token.refresh;
    return [
      { series: cheap, schedule: { warmUp: d.n.warmUp, block: 10, samples: d.n.samples, between }, mark: 'after the cheap series' },
      { series: heavy, schedule: { warmUp: 2, block: 5, samples: d.n.heavy, between }, mark: 'after the heavy series' },
      ...(refused.length ? [{ series: refused, schedule: { warmUp: 0, block: 10, samples: 10, between } }] : []),
    ];
  },
  measure,
  report: (run) => ({
    Summary: summary(run),
    Setup: [setup(run)],
    'DynamoDB calls and units per request': [
      callsTable(run.measured.operations, 'request'),
      `Recorded on one request of each kind sent to the users handler running in the bench process behind the local gateway (\`inProcessGateway\` in bench/harness/stack.ts), by a middleware on the product's clients asking \`ReturnConsumedCapacity: TOTAL\`; units as DynamoDB Local reports them. \`identity-provider\` is what every request pays before its own reads (${Number(rcu(run.measured.operations.at(-1)!.calls).toFixed(1))} RCU).`,
    ],
    'Latency (ms)': [seriesTable(run.series, run.handlerMs)],
  }),
});
