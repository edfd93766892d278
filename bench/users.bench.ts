/** `npm run bench:users` (docs/benchmarks.md#users-at-scale): the users area at 100,000 users, API against raw reads, and its units. */
import { authorizeOrgAdmin } from '../shared/app/access/org-access';
import { authenticate } from '../shared/app/auth/caller';
import { keys } from '../shared/adapters/store/keys';
import { getItem, getItems, queryPartition } from '../shared/adapters/store/table';
import { prefixOf, wordsIn } from '../shared/domain/users/user-index';
import { CLOCK_MARGIN_MS, listUsers, type UserListQuery } from '../shared/app/users/user-queries';
import { quicksearchUsers } from '../shared/app/users/user-quicksearch';
import { RANGED_READ_FROM } from '../shared/domain/users/user-index.repository';
import { registerUser } from '../shared/app/users/user-registration';
import { getUser, saveUser, type StoredUser } from '../shared/domain/users/user.repository';
import { userPorts } from '../shared/app/users/identity-provider.port';
import { userSchemas } from '../shared/domain/users/user.schemas';
import { benchmark, type Context, type Run } from './harness/benchmark';
import { callsTable, recordCalls, type Call } from './harness/capacity';
import { putAll, searchTermsFor, seedOrganization, seedUsers, type SeededOrganization as Org } from './harness/seed';
import { auditItem } from '../shared/domain/audit/audit-event.repository';
import type { AuditEvent } from '../shared/domain/audit/audit-event';
import { AUDIT_CLOCK_MARGIN_MS, listAuditEvents } from '../shared/app/audit-trail/audit-trail.service';
import { auditTrailSchemas } from '../shared/app/audit-trail/audit-trail.schemas';
import type { UserRecord } from '../shared/domain/users/user.entities';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_AND_RAW, bullets, check, comparisonTable, fmt, percentile, series, seriesTable, sum, timed } from './harness/series';
import { accessToken, apiGet, inProcessGateway, orgUrl } from './harness/stack';

const { quicksearchQuerySchema, userListQuerySchema } = userSchemas();
const { auditEventsQuerySchema } = auditTrailSchemas();

/** A user's creation as its audit event, filed at `at`. */
const eventOf = (user: UserRecord, at: string): AuditEvent => ({
  id: randomUUID(), at, actor: { uuid: null, email: null }, action: 'USER_CREATED', resource: { type: 'USER', uuid: user.uuid }, requestId: null,
  changes: [{ op: 'add', path: '', value: { name: user.name, email: user.email, role: user.role } }],
});

/** One creation event per seeded user, a second apart up to a minute ago, straight into the table. */
async function seedAuditEvents(org: Org, users: UserRecord[]) {
  const end = Date.now() - 60_000;
  const [ms] = await timed(() => putAll(users.map((user, i) => auditItem(org.uuid, eventOf(user, new Date(end - i * 1000).toISOString())))));
  return { count: users.length, ms };
}

const [QUICK_TERM, AIM_P95_MS, AIM_RCU, AIM_RATIO, SMALL_ORG, WRITES] = ['jose gar', 150, 10, 2, 1_000, 10] as const;
/** Offset pages: page `DEEP_PAGE` of 20 in three orders, with and without a search matching every user, each within `AIM_DEEP`× a single read's p95. */
const [DEEP_PAGE, DEEP_SEARCH, AIM_DEEP] = [100, 'example', 4] as const;
/** How long the series `audit-settled` waits after filing its event. */
const SETTLE_MS = 500;
const isDeep = (key: string) => key.includes('&page=') || ['deep-cold', 'audit-deep', 'audit-cold', 'audit-settled'].includes(key);
const QUICK = `/quicksearch?name=${encodeURIComponent(QUICK_TERM)}`;
/** A request by its path under …/users; its series are `api.<key>` and `raw.<key>`. */
type Request = { key: string; label: string; path: string; audit?: boolean };
const parse = (path: string) => userListQuerySchema.parse(Object.fromEntries(new URLSearchParams(path.slice(1)))) as UserListQuery;
// Page 1,000 of 20 at full size; on a smaller organization as deep as its active users allow.
const deepOf = (active: number) => Math.min(1000, Math.floor(active / 20) - 1);
const BY_NAME = 'orderBy=name&direction=ASC&linesPerPage=20';
/** The last page of 20 of the active users (the seeded ones and the ADMIN). */
const lastOf = (active: number) => Math.floor(active / 20);

/** Every listing order and status, a deep page by number and by `pageToken` beside the first, a search, then quicksearch and the single reads. */
function requestsOf(active: number, searchTerms: string, token: string): Request[] {
  const deep = deepOf(active);
  const orders = ['createdAt&direction=ASC', ...['name', 'email', 'company'].flatMap((o) => [`${o}&direction=ASC`, `${o}&direction=DESC`])];
  const listing = (qs: string, label = qs) => ({ key: qs, label, path: `?${qs}` });
  return [
    { key: 'default', label: 'default page (page 0, 5 lines, createdAt DESC, ACTIVE)', path: '' },
    ...['status=ALL', 'status=DELETED', ...orders.map((o) => `orderBy=${o}`)].map((qs) => listing(qs)),
    listing(BY_NAME, 'first page of 20 by name'),
    listing(`${BY_NAME}&page=${deep}`, `deep page: page ${fmt.int(deep)} of 20 by name`),
    listing(`${BY_NAME}&page=${lastOf(active)}`, `the last page: page ${fmt.int(lastOf(active))} of 20 by name`),
    { key: 'cursor', label: `the same deep page by \`pageToken\``, path: `?${BY_NAME}&pageToken=${token}` },
    listing(`searchTerms=${encodeURIComponent(searchTerms)}`, `searchTerms=${searchTerms}`),
    ...['name', 'email', 'createdAt'].flatMap((o) => [
      listing(`orderBy=${o}&direction=ASC&linesPerPage=20&page=${DEEP_PAGE}`, `page ${DEEP_PAGE} of 20 by ${o}`),
      listing(`orderBy=${o}&direction=ASC&linesPerPage=20&page=${DEEP_PAGE}&searchTerms=${DEEP_SEARCH}`, `page ${DEEP_PAGE} of 20 by ${o}, \`searchTerms=${DEEP_SEARCH}\` (every user)`),
    ]),
    { key: 'deep-cold', label: `page ${DEEP_PAGE} of 20 by name right after a user write`, path: `?orderBy=name&direction=ASC&linesPerPage=20&page=${DEEP_PAGE}` },
    { key: 'audit-first', label: 'audit events, first page of 20', path: '?linesPerPage=20', audit: true },
    { key: 'audit-deep', label: `audit events, page ${DEEP_PAGE} of 20`, path: `?linesPerPage=20&page=${DEEP_PAGE}`, audit: true },
    { key: 'audit-cold', label: `audit events, page ${DEEP_PAGE} of 20 right after an event`, path: `?linesPerPage=20&page=${DEEP_PAGE}`, audit: true },
    // The same, once the stack's publisher (in the same process, where AWS runs it in a container of its own) has handled the event's stream record.
    { key: 'audit-settled', label: `audit events, page ${DEEP_PAGE} of 20, ${SETTLE_MS} ms after an event`, path: `?linesPerPage=20&page=${DEEP_PAGE}`, audit: true },
    { key: 'quick', label: `quicksearch \`${QUICK_TERM}\`, warm container`, path: QUICK }, { key: 'reload', label: `quicksearch \`${QUICK_TERM}\` right after a user write`, path: QUICK },
    { key: 'get', label: '`GET /users/{userId}`', path: '/{userId}' }, { key: 'idp', label: '`GET /users/identity-provider`', path: '/identity-provider' },
  ];
}

/** Two organizations seeded, an ADMIN's token, and what the product answers in process to each listing and to quicksearch. */
async function data({ size, progress, stack }: Context) {
  const n = { users: size(100_000, 1_000), samples: size(200, 30), warmUp: size(10, 3) };
  const [big, small] = [await seedOrganization('bench-users'), await seedOrganization('bench-users-small')];
  progress(`seeding ${fmt.int(n.users - 1)} users`);
  const [seeded, smallSeeded] = [await seedUsers(big, n.users - 1, 20_261_121, progress), await seedUsers(small, SMALL_ORG - 1, 7, progress)];
  progress(`seeding ${fmt.int(n.users)} audit events`);
  const events = await seedAuditEvents(big, seeded.users);
  const [token, base, searchTerms] = [await accessToken(stack.info, big), `${orgUrl(stack.info, big.uuid)}/users`, searchTermsFor(seeded.users)];
  const [caller, quick] = [await authenticate(token.bearer), quicksearchQuerySchema.parse({ name: QUICK_TERM })];
  const scope = await authorizeOrgAdmin(caller, big.uuid);
  // The page before the deep one gives the deep one's cursor: in process its `next`, through the API its `nextPageToken`.
  const beforeDeep = `?${BY_NAME}&page=${deepOf(seeded.active) - 1}`;
  const [before, deepToken] = [await listUsers(scope, parse(beforeDeep)), (JSON.parse(await apiGet(`${base}${beforeDeep}`, token.bearer)) as { nextPageToken: string }).nextPageToken];
  const requests = requestsOf(seeded.active, searchTerms, encodeURIComponent(deepToken));
  // Neither container has read the postings of the search every user matches yet: its first page reads them all (by uuid range from RANGED_READ_FROM users on).
  const broad = `?${BY_NAME}&searchTerms=${DEEP_SEARCH}`;
  const [broadApiMs, broadInProcessMs] = [(await timed(() => apiGet(`${base}${broad}`, token.bearer)))[0], (await timed(() => listUsers(scope, parse(broad))))[0]];
  // Nor has either read the keys of the organization's events: its first numbered audit page reads them all.
  const firstAudit = `${base.replace(/\/users$/, '/audit-events')}?linesPerPage=20`;
  const [auditApiMs] = await timed(() => apiGet(firstAudit, token.bearer));
  const pages = new Map<string, { uuids: string[]; total: number }>();
  const auditKeys = new Map<string, string>();
  for (const r of requests.filter((r) => r.audit)) {
    const { events: found, total } = await listAuditEvents(scope, auditEventsQuerySchema.parse(Object.fromEntries(new URLSearchParams(r.path.slice(1)))));
    pages.set(r.key, { uuids: found.map((event) => event.id), total });
    for (const { id, at } of found) auditKeys.set(id, at);
  }
  for (const r of requests.filter((r) => !r.path.startsWith('/') && !r.audit)) {
    const { users, total } = await listUsers(scope, parse(r.path), r.key === 'cursor' ? before.next : undefined);
    check(users.length > 0, `${r.label} returned an empty page: the seeding wrote too few users for it (run at a larger --scale)`);
    pages.set(r.key, { uuids: users.map((u) => u.uuid), total });
  }
  // Neither this process nor the stack's users container has the name list yet: each first quicksearch reads it whole.
  const [inProcessMs, names] = await timed(() => quicksearchUsers(scope, quick.name, quick.limit));
  const [apiMs, firstAnswer] = await timed(() => apiGet(`${base}${QUICK}`, token.bearer));
  check(names.length > 0 && firstAnswer === JSON.stringify(names), `Quicksearch \`${QUICK_TERM}\` found nobody, or the API answered otherwise than the product in process: compare ${firstAnswer.slice(0, 200)}`);
  const targets = Array.from({ length: n.warmUp + n.samples }, () => seeded.users[Math.floor(Math.random() * seeded.users.length)]!.uuid);
  return { n, events, big, small, seeded, smallSeeded, users: seeded.users, token, callerUuid: caller.user.uuid, searchTerms, requests, pages, quick, names, first: { inProcessMs, apiMs }, broad: { apiMs: broadApiMs, inProcessMs: broadInProcessMs }, auditApiMs, auditKeys, targets, base, after: before.next! };
}
type Data = Awaited<ReturnType<typeof data>>;

/** What the product reads for a request, through its store module alone, and how the report names it. */
function rawReads(d: Data, r: Request): [string, (i: number) => Promise<unknown>] {
  const org = d.big.uuid;
  const count = (consistent?: boolean) => getItem(keys.userCount(org), { consistent });
  // As a container that is up to date reads them: the changes of the last CLOCK_MARGIN_MS (the seeding's are older).
  const changes = () => queryPartition(keys.userNameChanges(org), { forward: true, consistent: true, after: new Date(Date.now() - CLOCK_MARGIN_MS).toISOString() });
  if (r.key === 'quick') return ['`GetItem` of the count (strongly consistent)', () => count(true)];
  if (r.key === 'reload') return ['`GetItem` of the count → `Query` of the name changes (strongly consistent)', async () => [await count(true), await changes()]];
  if (r.key === 'get') return ['`GetItem` of the same user item', (i) => getItem(keys.userKey(org, d.targets[i]!))];
  if (r.key === 'idp') return ['`GetItem` of the caller', () => getItem(keys.userKey(org, d.callerUuid))];
  if (r.audit) {
    // The events are in the container's memory after its first page (timed once, apart): what it reads then.
    const recent = () => queryPartition(keys.auditEventsOf(org), { forward: false, consistent: true, attributes: ['PK', 'SK', 'ttl'], after: new Date(Date.now() - AUDIT_CLOCK_MARGIN_MS).toISOString() });
    const shown = d.pages.get(r.key)!.uuids;
    const pageKeys = shown.map((id) => keys.auditEvent(org, d.auditKeys.get(id)!, id));
    return ['`Query` of the keys of the last minute\'s events (strongly consistent) → `BatchGetItem` of the page\'s events', async () => [await recent(), await getItems(pageKeys)]];
  }
  const q = parse(r.path);
  const page = () => getItems(d.pages.get(r.key)!.uuids.map((uuid) => keys.userKey(org, uuid)));
  const longest = wordsIn(q.searchTerms ?? '').sort((a, b) => b.length - a.length)[0];
  // A search's matches are in the container's memory after its first read (timed once, apart): what it reads then.
  if (longest) return ['`GetItem` of the count (strongly consistent) → `BatchGetItem` of the page\'s users', async () => [await count(true), await page()]];
  const after = r.key === 'cursor' ? d.after : undefined;
  // A page nearer the end than the start is read from the end, as the product reads it.
  const [offset, total] = [after ? 0 : q.page * q.linesPerPage, d.pages.get(r.key)!.total];
  const fromEnd = !after && offset > total - offset;
  const [statuses, limit] = [q.status === 'ALL' ? ['ACTIVE', 'DELETED'] : [q.status], fromEnd ? total - offset : offset + q.linesPerPage + 1];
  const entries = () => statuses.map((status) => queryPartition(keys.userListing(org, status, q.orderBy), { forward: (q.direction === 'ASC') !== fromEnd, limit, exclusiveStart: after }));
  const what = `\`Query\` of the ${after ? 'next' : fromEnd ? 'last' : 'first'} ${fmt.int(limit)} entries of ${statuses.length} listing partition(s)${after ? ' from the last key shown' : ''} ∥ \`GetItem\` of the count → \`BatchGetItem\` of the page's users`;
  return [what, async () => [await Promise.all([count(), ...entries()]), await page()]];
}

/** A user write moves the count's version: quicksearch then catches up on the name changes. */
async function writeOneUser(d: Data): Promise<void> {
  const seen = (await getUser(d.big.uuid, d.users.find((u) => u.status === 'ACTIVE')!.uuid, { consistent: true })) as StoredUser;
  check(await saveUser({ ...seen, updatedAt: new Date().toISOString() }, seen), 'saveUser refused the write: another writer changed the user meanwhile; run the bench alone');
}

/** A request through the API, its answer checked against what the product returned in process, and its raw reads. */
function timedSeries(d: Data, r: Request) {
  const [what, raw] = rawReads(d, r);
  const page = d.pages.get(r.key);
  const answer = (body: string) => JSON.parse(body) as { content: { uuid: string; id: string }[]; totalElements: number; uuid: string };
  const answered = (body: string, i: number) =>
    // The events filed before each request of 'audit-cold' move every page on by one: audit pages are checked for their size and total
    // (test/integration/users-list-deep.test.ts checks their content against the page-token walk).
    r.audit ? answer(body).content.length === 20 && answer(body).totalElements >= page!.total
    : page ? answer(body).content.map((u) => u.uuid).join() === page.uuids.join() && answer(body).totalElements === page.total
    : r.path === QUICK ? body === JSON.stringify(d.names)
    : r.key !== 'get' || answer(body).uuid === d.targets[i];
  const url = (i: number) => (r.audit ? `${d.base.replace(/\/users$/, '/audit-events')}${r.path}` : `${d.base}${r.path.replace('{userId}', d.targets[i]!)}`);
  const api = series(`api.${r.key}`, `API \`GET /${r.audit ? 'audit-events' : 'users'}${decodeURIComponent(r.path)}\``, (i) => apiGet(url(i), d.token.bearer), (body, i) =>
    check(answered(body as string, i), `${url(i)} answered otherwise than the product in process: ${(body as string).slice(0, 200)}`));
  if (r.key === 'reload' || r.key === 'deep-cold') api.prepare = () => writeOneUser(d);
  if (r.key === 'audit-cold') api.prepare = () => fileOneEvent(d);
  if (r.key === 'audit-settled') api.prepare = async () => [await fileOneEvent(d), await sleep(SETTLE_MS)];
  return [api, series(`raw.${r.key}`, `raw: ${what}`, raw)];
}

/** One audit event filed now, as a user write in the organization files it. */
const fileOneEvent = (d: Data) => putAll([auditItem(d.big.uuid, eventOf(d.users[0]!, new Date().toISOString()))]);

/** Calls and units of each request, sent once to the users handler running in this process (quicksearch warmed first; the reload after a write). */
async function recordedCalls(d: Data, { progress, stack }: Context) {
  progress('recording calls and units');
  const local = await inProcessGateway('users');
  const operations: { key: string; label: string; calls: Call[] }[] = [];
  for (const r of d.requests) {
    const send = () => apiGet(`${local.url}/${stack.info.userSubpath}/org/${d.big.uuid}/${r.audit ? 'audit-events' : 'users'}${r.path.replace('{userId}', d.users[0]!.uuid)}`, d.token.bearer);
    await d.token.refresh();
    await (r.key === 'quick' ? send() : r.key === 'reload' || r.key === 'deep-cold' ? writeOneUser(d) : r.key === 'audit-cold' || r.key === 'audit-settled' ? fileOneEvent(d) : undefined);
    operations.push({ key: r.key, label: r.label, calls: await recordCalls(send) });
  }
  await local.close();
  return operations;
}

/** Registering one user (e-mail claim, Cognito, one transaction) `WRITES` times into each organization: the calls of each. */
async function writeUnits(d: Data) {
  const { identityProvider } = userPorts();
  const user = (org: Org, i: number) => ({ orgUuid: org.uuid, name: 'María José García-López', email: `maria.garcia.${i}@grupoandaluz.example`, company: 'Grupo Andaluz de Logística' });
  const register = (org: Org, i: number) => registerUser({ ...user(org, i), password: `Bench-${i}-pw`, role: 'VIEWER', permissions: [org.permission] }, identityProvider);
  const writes: { label: string; calls: Call[][] }[] = [];
  for (const [label, org] of [[`the small organization (${fmt.int(SMALL_ORG)} users)`, d.small], [`the large one (${fmt.int(d.n.users)} users)`, d.big]] as const) {
    const calls: Call[][] = [];
    for (let i = 0; i < WRITES; i++) calls.push(await recordCalls(() => register(org, i)));
    writes.push({ label, calls });
  }
  return writes;
}

const measure = async (d: Data, context: Context) => ({ operations: await recordedCalls(d, context), writes: await writeUnits(d) });
type UsersRun = Run<Data, Awaited<ReturnType<typeof measure>>>;

/** Medians of one organization's registrations: the transaction's items and the WCU reported for it, and all WCU. */
function written({ label, calls }: UsersRun['measured']['writes'][number]) {
  const median = (of: (call: Call) => number, only = (call: Call) => call.command === 'TransactWriteItems') => percentile(calls.map((c) => sum(c.filter(only).map(of))), 50);
  const items = median((c) => c.keys);
  return `into ${label} a transaction of **${items} items** (DynamoDB Local reports ${median((c) => c.write)} WCU for it; DynamoDB charges a transaction 2 WCU per item and KB, so at least ${2 * items}), ${median((c) => c.write, () => true)} WCU in all`;
}

function summary({ data: d, measured: { operations, writes }, f }: UsersRun) {
  const rcu = (key: string) => Number(sum(operations.find((o) => o.key === key)!.calls.map((c) => c.read)).toFixed(1));
  const rows = d.requests.map((r) => ({ ...r, api: `api.${r.key}`, raw: `raw.${r.key}`, rcu: rcu(r.key) }));
  const met = (ok: boolean, aim: string) => `${aim}: ${ok ? 'met' : '**not met**'}`;
  const deepAim = AIM_DEEP * f.p95('api.get');
  const aim = (r: (typeof rows)[number]) =>
    ['get', 'idp'].includes(r.key) ? met(f.p50(r.api) / f.p50(r.raw) <= AIM_RATIO, `÷ raw ≤ ${AIM_RATIO}×`)
    : isDeep(r.key) ? met(f.p95(r.api) <= deepAim, `p95 ${fmt.ms(f.p95(r.api))} ≤ ${AIM_DEEP}× a single read's p95 (${fmt.ms(deepAim)} ms)`)
    : met(f.p95(r.api) <= AIM_P95_MS, `p95 ≤ ${AIM_P95_MS} ms`);
  return [
    comparisonTable(f, rows, [['RCU per request', (r) => r.rcu, 'right'], ['aim', aim]]),
    bullets([
      `The deep page by \`pageToken\` against the first page of 20 by name: p50 ${fmt.ms(f.p50('api.cursor'))} against ${fmt.ms(f.p50(`api.${BY_NAME}`))} ms, ${rcu('cursor')} against ${rcu(BY_NAME)} RCU (by number: ${fmt.ms(f.p50(rows.find((r) => r.label.startsWith('deep'))!.api))} ms).`,
      `Default page: ${rows[0]!.rcu} RCU per request (${met(rows[0]!.rcu <= AIM_RCU, `aim ≤ ${AIM_RCU}`)}); its reads do not depend on the organization's size (the first 5 entries of one partition, the count, 5 users).`,
      `Writing one user (\`registerUser\`: e-mail claim, Cognito, one transaction), ${WRITES} times into each organization, the same name, e-mail shape and company: ${writes.map(written).join('; ')}.`,
    ]),
  ];
}

const setup = ({ data: d }: UsersRun) => bullets([
    `Organization \`${d.big.name}\` made by \`createOrganization\` (its ADMIN in cognito-local; the bench signs in with a password grant). Its other ${fmt.int(d.users.length)} users written straight into the table as the product stores them (bench/harness/seed.ts: the user item, the items of \`indexWrites\`, the e-mail claim; no Cognito account, which no measured operation reads): ${fmt.int(d.seeded.items)} items in ${fmt.int(d.seeded.requests)} \`BatchWriteItem\` requests, 16 in flight, **${fmt.s(d.seeded.ms)}**. A second organization of ${fmt.int(SMALL_ORG)} users the same way (${fmt.s(d.smallSeeded.ms)}).`,
    `The users: VIEWERs of that bot, names of many languages, ${fmt.int(d.users.filter((u) => u.company).length)} with one of 30 companies, ${fmt.int(d.users.length - d.seeded.active)} DELETED. \`searchTerms=${d.searchTerms}\` matches ${d.pages.get(d.requests.find((r) => r.label.startsWith('searchTerms='))!.key)!.total} active users; quicksearch \`${QUICK_TERM}\` returns ${d.names.length} names (at most ${d.quick.limit}). A container's first page of \`searchTerms=${DEEP_SEARCH}\` (every user) reads every posting of \`${prefixOf(DEEP_SEARCH)}\` (by uuid range from ${fmt.int(RANGED_READ_FROM)} users on): once, untimed by the series, **${fmt.s(d.broad.apiMs)}** through the API and ${fmt.s(d.broad.inProcessMs)} in the bench process. A container's first numbered page of audit events reads the keys of all ${fmt.int(d.events.count)}: once, untimed by the series, **${fmt.s(d.auditApiMs)}** through the API. A container's first quicksearch reads every active user's name (${fmt.int(d.seeded.active + 1)}; by name range from ${fmt.int(RANGED_READ_FROM)} on): once each, untimed by the series, **${fmt.s(d.first.apiMs)}** through the API and ${fmt.s(d.first.inProcessMs)} in the bench process.`,
    `${API_AND_RAW} Every API answer is checked against what the product returned in process. Quicksearch after a write: before each request, untimed, \`saveUser\` rewrites one user, which moves the count's version.`,
  ]);

benchmark<Data, UsersRun['measured']>({
  title: 'Users area on the users index: API against raw DynamoDB reads', stack: true, data, measure,
  series: (d) => [{ series: d.requests.flatMap((r) => timedSeries(d, r)), schedule: { warmUp: d.n.warmUp, block: 10, samples: d.n.samples, between: d.token.refresh } }],
  report: (run) => ({
    Summary: summary(run), Setup: [setup(run)],
    'DynamoDB calls and units per request': [callsTable(run.measured.operations, 'request'),
      "Recorded on one request of each kind sent to the users handler running in the bench process behind the local gateway (`inProcessGateway` in bench/harness/stack.ts), by a middleware on the product's clients asking `ReturnConsumedCapacity: TOTAL`; units as DynamoDB Local reports them. `identity-provider` is what every request pays before its own reads.",
    ],
    'Latency (ms)': [seriesTable(run.series)],
  }),
});
