/**
 * `npm run bench:users`: the users area on an organization of 100,000 users. Every
 * listing shape of `GET /users`, search, quicksearch (warm, and right after a user write) and the single
 * reads through the local gateway, each next to the raw DynamoDB reads of the same data, interleaved;
 * the calls and read units each request makes; the write units of registering one user at 1,000 and at
 * 100,000 users. Report: bench/users-figures.md.
 *
 * Options besides the size: `--samples N` (measured requests per cheap series; 200 at full size),
 * `--heavy N` (per series that reads a whole partition; 30).
 */
import { performance } from 'node:perf_hooks';
import { authorizeOrgAdmin } from '../shared/access/org-access';
import { authenticate } from '../shared/auth/caller';
import { addBot, addEnvironment, createOrganization } from '../shared/operator/operator.service';
import { keys } from '../shared/store/keys';
import { updateItem } from '../shared/store/table';
import { quickMatches } from '../shared/text/matching';
import { POSTING_PREFIX, prefixOf, wordsIn, type ListingOrder } from '../shared/users/user-index';
import { listUsers, quicksearchUsers, readUserCount, SHORT_SEARCH_MAX_USERS, type UserListQuery } from '../shared/users/user-queries';
import { registerUser } from '../shared/users/user-registration';
import { getUser, saveUser, type StoredUser } from '../shared/users/user.repository';
import { userPorts } from '../shared/users/user-ports';
import { quicksearchQuerySchema, userListQuerySchema } from '../shared/users/user.schemas';
import { describeCalls, recordCalls, type Call } from './harness/capacity';
import { batchGet, getItem, query, queryFirst } from './harness/raw';
import { benchmark, bullets, table } from './harness/report';
import { putAll } from './harness/seed';
import { check, figures, interleave, series, type Series } from './harness/series';
import { accessToken, apiGet, inProcessGateway, startStack, useFunctionEnv } from './harness/stack';
import { fmt, sum } from './harness/stats';
import { generateUsers, searchTermsFor, storedItemsOf } from './users.data';

const [QUICK_TERM, AIM_P95_MS, AIM_RCU, AIM_RATIO] = ['jose gar', 150, 10, 2];
const SMALL_ORG = 1_000;

benchmark({
  name: 'users',
  script: 'bench:users',
  title: 'Users area on the users index: API against raw DynamoDB reads',
  async run({ size, option, mark, progress }) {
    const USERS = size(100_000, 1_000);
    const SAMPLES = Number(option('samples') ?? size(200, 30));
    const HEAVY = Number(option('heavy') ?? size(30, 10));
    const WARM_UP = size(10, 3);
    const stack = await startStack();
    useFunctionEnv(stack);

    // Organizations with a real ADMIN (Cognito and all); the other users written straight to the store as
    // the product stores them (user item, users-index items, e-mail claim), the count set once at the end.
    const newOrg = async (name: string) => {
      const admin = { name, admin: { email: `admin@${name}.example`, password: 'Bench-Admin-1' } };
      const { organization } = await createOrganization({ name, adminEmail: admin.admin.email, adminName: 'Bea Bench', adminPassword: admin.admin.password });
      const environment = await addEnvironment(organization.uuid, 'Production');
      const bot = await addBot(organization.uuid, environment.uuid, 'Support bot');
      return { uuid: organization.uuid, admin, permission: { environmentUuid: environment.uuid, botUuid: bot.uuid } };
    };
    type Org = Awaited<ReturnType<typeof newOrg>>;
    const seed = async (org: Org, count: number, seedNumber?: number) => {
      const { users, firstNames } = generateUsers(org.uuid, org.permission, count, seedNumber);
      const started = performance.now();
      let [items, requests] = [0, 0];
      for (let from = 0; from < users.length; from += 2_000) {
        const chunk = users.slice(from, from + 2_000).flatMap(storedItemsOf);
        items += chunk.length;
        requests += await putAll(chunk, 16);
        if (from % 10_000 === 0 && from > 0) progress(`  ${fmt.int(from)} users, ${fmt.int(items)} items, ${fmt.s(performance.now() - started)}`);
      }
      const active = users.filter((u) => u.status === 'ACTIVE').length;
      await updateItem({
        Key: keys.userCount(org.uuid),
        UpdateExpression: 'ADD ACTIVE :a, DELETED :d, version :v',
        ExpressionAttributeValues: { ':a': active, ':d': users.length - active, ':v': 1 },
      });
      return { users, firstNames, ms: performance.now() - started, items, requests, active };
    };

    const big = await newOrg('bench-users');
    const small = await newOrg('bench-users-small');
    progress(`seeding ${fmt.int(USERS - 1)} users`);
    const seeded = await seed(big, USERS - 1);
    const smallSeeded = await seed(small, SMALL_ORG - 1, 7);
    mark('after seeding');
    const { users } = seeded;

    // Nothing lost: the count holds every user once, and each listing partition every user of its status.
    progress('checking the seeded index');
    const checkStarted = performance.now();
    const count = await readUserCount(big.uuid, { consistent: true });
    const expectedActive = seeded.active + 1;
    const expectedDeleted = users.length - seeded.active;
    check(count.ACTIVE === expectedActive && count.DELETED === expectedDeleted, `The count says ${count.ACTIVE} ACTIVE / ${count.DELETED} DELETED, not ${expectedActive} / ${expectedDeleted}`);
    const partitionSizes: string[] = [];
    for (const status of ['ACTIVE', 'DELETED'] as const) {
      for (const order of ['createdAt', 'name', 'email', 'company'] as ListingOrder[]) {
        const pk = keys.userListing(big.uuid, status, order);
        const found = await query({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ProjectionExpression: '#u', ExpressionAttributeNames: { '#u': 'uuid' } });
        const uuids = new Set(found.items.map((item) => item.uuid as string));
        const want = users.filter((u) => u.status === status);
        check(uuids.size === (status === 'ACTIVE' ? expectedActive : expectedDeleted) && want.every((u) => uuids.has(u.uuid)), `${pk} holds ${uuids.size} users`);
        partitionSizes.push(`${status} by ${order}: ${fmt.int(uuids.size)} (${found.pages} page${found.pages === 1 ? '' : 's'})`);
      }
    }
    const checkMs = performance.now() - checkStarted;

    const token = await accessToken(stack.info, big.admin);
    const caller = await authenticate(token.bearer);
    const scope = await authorizeOrgAdmin(caller, big.uuid);
    const base = `${stack.info.apiUrl}/${stack.info.userSubpath}/org/${big.uuid}/users`;
    const searchTerms = searchTermsFor(users, seeded.firstNames);
    // Two words of 2 characters (the first letters of an active user's first and last names): no posting narrows it.
    const SHORT_TERMS = ((words) => `${words[0]!.slice(0, 2)} ${words.at(-1)!.slice(0, 2)}`)(wordsIn(users.find((u) => u.status === 'ACTIVE')!.name));
    const SHORT_REFUSED = seeded.active + 1 > SHORT_SEARCH_MAX_USERS;
    // Page 1,000 of 20 at full size; on a smaller organization as deep as its active users allow.
    const DEEP_PAGE = Math.min(1000, Math.floor(seeded.active / 20) - 1);

    interface Shape {
      key: string;
      label: string;
      qs: string;
      heavy?: boolean;
    }
    const shapes: Shape[] = [
      { key: 'default', label: 'default page (page 0, 5 lines, createdAt DESC, ACTIVE)', qs: '' },
      { key: 'all', label: 'status=ALL (two partitions merged)', qs: 'status=ALL' },
      { key: 'deleted', label: 'status=DELETED', qs: 'status=DELETED' },
      { key: 'createdAsc', label: 'createdAt ASC', qs: 'orderBy=createdAt&direction=ASC' },
      ...(['name', 'email', 'company'] as const).flatMap((order) =>
        (['ASC', 'DESC'] as const).map((direction) => ({ key: `${order}${direction}`, label: `${order} ${direction}`, qs: `orderBy=${order}&direction=${direction}` })),
      ),
      { key: 'deep', label: `deep page: page ${fmt.int(DEEP_PAGE)} of 20 by name`, qs: `orderBy=name&direction=ASC&page=${DEEP_PAGE}&linesPerPage=20`, heavy: true },
      { key: 'search', label: `searchTerms=${searchTerms}`, qs: `searchTerms=${encodeURIComponent(searchTerms)}` },
      // Past SHORT_SEARCH_MAX_USERS active users such a search is refused (422): timed apart below.
      ...(SHORT_REFUSED
        ? []
        : [{ key: 'short', label: `searchTerms=${SHORT_TERMS} (every word under ${POSTING_PREFIX} characters)`, qs: `searchTerms=${encodeURIComponent(SHORT_TERMS)}`, heavy: true }]),
    ];
    const parse = (qs: string) => userListQuerySchema.parse(Object.fromEntries(new URLSearchParams(qs))) as UserListQuery;
    const expected = new Map<string, { uuids: string; total: number }>();
    for (const shape of shapes) {
      const { users: page, total } = await listUsers(scope, parse(shape.qs));
      check(page.length > 0, `${shape.label} returned an empty page`);
      expected.set(shape.key, { uuids: page.map((u) => u.uuid).join(), total });
    }
    const quick = quicksearchQuerySchema.parse({ name: QUICK_TERM });
    const names = await quicksearchUsers(scope, quick.name, quick.limit);
    check(names.length > 0, 'The quicksearch term matches nobody');
    const targets = Array.from({ length: WARM_UP + Math.max(SAMPLES, HEAVY) }, () => users[Math.floor(Math.random() * users.length)]!);

    // Raw reads: what the product reads for each shape, as bare SDK commands (no decoding, sorting or merging).
    const firstOf = (pk: string, forward: boolean, limit?: number, attributes?: string[], consistent = false) =>
      queryFirst({
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: forward,
        ...(consistent && { ConsistentRead: true }),
        ...(limit !== undefined && { Limit: limit }),
        ...(attributes && { ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '), ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a])) }),
      }, limit);
    const pageKeys = (key: string) => expected.get(key)!.uuids.split(',').map((uuid) => keys.userKey(big.uuid, uuid));
    const rawList = (shape: Shape): { what: string; run: () => Promise<unknown> } => {
      const q = parse(shape.qs);
      const statuses = q.status === 'ALL' ? (['ACTIVE', 'DELETED'] as const) : [q.status];
      const words = wordsIn(q.searchTerms ?? '');
      const longest = [...words].sort((a, b) => b.length - a.length)[0];
      if (longest && longest.length >= POSTING_PREFIX) {
        return { what: `\`Query\` of the postings of \`${prefixOf(longest)}\` → \`BatchGetItem\` of the page's users`, run: async () => [await firstOf(keys.userPostings(big.uuid, prefixOf(longest)), true), await batchGet(pageKeys(shape.key))] };
      }
      if (longest) {
        return { what: `\`Query\` of the whole createdAt partition of ${statuses.join(' and ')} → \`BatchGetItem\` of the page's users`, run: async () => [await Promise.all(statuses.map((s) => firstOf(keys.userListing(big.uuid, s, 'createdAt'), true))), await batchGet(pageKeys(shape.key))] };
      }
      const limit = (q.page + 1) * q.linesPerPage;
      return {
        what: `\`Query\` of the first ${fmt.int(limit)} entries of ${statuses.length} listing partition${statuses.length > 1 ? 's' : ''} ∥ \`GetItem\` of the count → \`BatchGetItem\` of the page's users`,
        run: async () => [await Promise.all([getItem(keys.userCount(big.uuid)), ...statuses.map((s) => firstOf(keys.userListing(big.uuid, s, q.orderBy), q.direction === 'ASC', limit))]), await batchGet(pageKeys(shape.key))],
      };
    };
    const api = (url: (i: number) => string) => (i: number, id: string) => apiGet(url(i), token.bearer, id);

    // A user write between operations moves the count's version: quicksearch then reloads its names.
    const written = users.find((u) => u.status === 'ACTIVE')!;
    const writeOneUser = async () => {
      const seen = (await getUser(big.uuid, written.uuid, { consistent: true })) as StoredUser;
      check(await saveUser({ ...seen, updatedAt: new Date().toISOString() }, seen), 'saveUser refused the write');
    };
    const activeNamesPk = keys.userListing(big.uuid, 'ACTIVE', 'name');

    const listing: Series[] = shapes.flatMap((shape) => {
      const raw = rawList(shape);
      const want = expected.get(shape.key)!;
      return [
        series(`api.${shape.key}`, `API \`GET /users${shape.qs ? `?${decodeURIComponent(shape.qs)}` : ''}\``, api(() => `${base}?${shape.qs}`), (body) => {
          const page = JSON.parse(body as string) as { content: { uuid: string }[]; totalElements: number };
          check(page.content.map((u) => u.uuid).join() === want.uuids && page.totalElements === want.total, `GET /users?${shape.qs} returned another page`);
        }),
        series(`raw.${shape.key}`, `raw: ${raw.what}`, raw.run),
      ];
    });
    const heavyKeys = new Set(shapes.filter((s) => s.heavy).flatMap((s) => [`api.${s.key}`, `raw.${s.key}`]));
    const quickSeries = [
      series('api.quick', `API \`GET /users/quicksearch?name=${QUICK_TERM}\`, warm container`, api(() => `${base}/quicksearch?name=${encodeURIComponent(QUICK_TERM)}`), (body) => check(body === JSON.stringify(names), 'Quicksearch returned other names')),
      series('raw.quick', 'raw: `GetItem` of the count (strongly consistent)', () => getItem(keys.userCount(big.uuid))),
      series('api.reload', `API \`GET /users/quicksearch?name=${QUICK_TERM}\` right after a user write (names reloaded)`, api(() => `${base}/quicksearch?name=${encodeURIComponent(QUICK_TERM)}`), (body) => check(body === JSON.stringify(names), 'Quicksearch returned other names'), writeOneUser),
      series('raw.reload', 'raw: `GetItem` of the count → `Query` of every active user\'s name (ACTIVE by name, projected, strongly consistent)', async () => [await getItem(keys.userCount(big.uuid)), await firstOf(activeNamesPk, true, undefined, ['name'], true)]),
    ];
    const single = [
      series('api.get', `API \`GET /users/{userId}\` (a random user of the ${fmt.int(users.length)})`, api((i) => `${base}/${targets[i]!.uuid}`), (body, i) => check(JSON.parse(body as string).uuid === targets[i]!.uuid, 'Another user')),
      series('raw.get', 'raw: `GetItem` of the same user item', (i) => getItem(keys.userKey(big.uuid, targets[i]!.uuid)), (item, i) => check((item as { uuid?: string })?.uuid === targets[i]!.uuid, 'GetItem missed')),
      series('api.idp', 'API `GET /users/identity-provider` (the caller itself)', api(() => `${base}/identity-provider`)),
      series('raw.idp', 'raw: `GetItem` of the caller', () => getItem(keys.userKey(big.uuid, caller.user.uuid))),
    ];
    const cheap = [...listing.filter((s) => !heavyKeys.has(s.key)), ...quickSeries.slice(0, 2), ...single];
    const heavy = [...listing.filter((s) => heavyKeys.has(s.key)), ...quickSeries.slice(2)];
    progress(`measuring ${cheap.length} series × ${SAMPLES}`);
    const cheapMs = await interleave(cheap, { warmUp: WARM_UP, block: 10, samples: SAMPLES, between: token.refresh });
    mark('after the cheap series');
    progress(`measuring ${heavy.length} heavy series × ${HEAVY}`);
    const heavyMs = await interleave(heavy, { warmUp: 2, block: 5, samples: HEAVY, between: token.refresh });
    mark('after the heavy series');
    // The refusal of a short search on an organization past the bound: its status and time, a few times.
    const refusals: { status: number; ms: number }[] = [];
    if (SHORT_REFUSED) {
      for (let i = 0; i < 10; i++) {
        await token.refresh();
        const started = performance.now();
        const response = await fetch(`${base}?searchTerms=${encodeURIComponent(SHORT_TERMS)}`, { headers: { authorization: token.bearer } });
        await response.text();
        refusals.push({ status: response.status, ms: performance.now() - started });
      }
      check(refusals.every((r) => r.status === 422), `A short search answered ${refusals.map((r) => r.status).join(', ')}, not 422`);
    }

    // Calls and units of each request: the same request sent to the users handler running in this process.
    progress('recording calls and units');
    const local = await inProcessGateway(['users']);
    const localBase = `${local.url}/${stack.info.userSubpath}/org/${big.uuid}/users`;
    const recorded = async (path: string) => {
      await token.refresh();
      return (await recordCalls(() => apiGet(`${localBase}${path}`, token.bearer))).calls;
    };
    const operations: { key: string; label: string; calls: Call[] }[] = [];
    for (const shape of shapes) operations.push({ key: shape.key, label: shape.label, calls: await recorded(`?${shape.qs}`) });
    const quickPath = `/quicksearch?name=${encodeURIComponent(QUICK_TERM)}`;
    await recorded(quickPath);
    operations.push({ key: 'quick', label: 'quicksearch, warm', calls: await recorded(quickPath) });
    await writeOneUser();
    operations.push({ key: 'reload', label: 'quicksearch after a user write', calls: await recorded(quickPath) });
    operations.push({ key: 'get', label: '`GET /users/{userId}`', calls: await recorded(`/${users[0]!.uuid}`) });
    const auth = await recorded('/identity-provider');
    operations.push({ key: 'idp', label: '`GET /users/identity-provider`', calls: auth });
    await local.close();
    const rcu = (calls: Call[]) => sum(calls.map((c) => c.read));
    const authRcu = rcu(auth);

    // Writing one user at 1,000 and at 100,000 users: the same user shape registered (claim, Cognito, transaction).
    progress('registering users at both sizes');
    const ports = userPorts();
    const WRITES = 10;
    const writes: Record<string, { wcu: number[]; rcu: number[]; ms: number[]; tx: number[]; txItems: number[] }> = {};
    for (const [label, org] of [[`the small organization (${fmt.int(SMALL_ORG)} users)`, small], [`the large one (${fmt.int(USERS)} users)`, big]] as const) {
      const figures = (writes[label] = { wcu: [] as number[], rcu: [] as number[], ms: [] as number[], tx: [] as number[], txItems: [] as number[] });
      for (let i = 0; i < WRITES; i++) {
        const started = performance.now();
        const { calls } = await recordCalls(() =>
          registerUser({ orgUuid: org.uuid, name: 'María José García-López', email: `maria.garcia.${i}@grupoandaluz.example`, password: `Bench-${i}-pw`, role: 'VIEWER', permissions: [org.permission], company: 'Grupo Andaluz de Logística' }, ports.identityProvider),
        );
        figures.ms.push(performance.now() - started);
        figures.wcu.push(sum(calls.map((c) => c.write)));
        figures.rcu.push(sum(calls.map((c) => c.read)));
        figures.tx.push(sum(calls.filter((c) => c.command === 'TransactWriteItems').map((c) => c.write)));
        figures.txItems.push(sum(calls.filter((c) => c.command === 'TransactWriteItems').map((c) => c.keys)));
      }
    }
    const afterCount = await readUserCount(big.uuid, { consistent: true });
    check(afterCount.ACTIVE === expectedActive + WRITES, `After ${WRITES} registrations the count says ${afterCount.ACTIVE} ACTIVE`);
    await stack.stop();

    const all = [...cheap, ...heavy];
    const f = figures(all, stack.handlerMs);
    const { p50, p95 } = f;
    const opOf = (key: string) => operations.find((o) => o.key === key);
    const rows = [
      ...shapes.map((s) => ({ key: s.key, label: s.label, listing: true, heavy: !!s.heavy })),
      { key: 'quick', label: `quicksearch \`${QUICK_TERM}\`, warm container`, listing: true, heavy: false },
      { key: 'reload', label: `quicksearch \`${QUICK_TERM}\` right after a user write`, listing: true, heavy: true },
      { key: 'get', label: '`GET /users/{userId}`', listing: false, heavy: false },
      { key: 'idp', label: '`GET /users/identity-provider`', listing: false, heavy: false },
    ];
    const n = (key: string) => f.get(`api.${key}`).samples.length;
    const wcu = Object.entries(writes);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    return {
      Summary: [
        table(rows, [
          ['request', (r) => r.label],
          ['n', (r) => n(r.key), 'right'],
          ['API p50 / p95 ms', (r) => `${fmt.ms(p50(`api.${r.key}`))} / ${fmt.ms(p95(`api.${r.key}`))}`, 'right'],
          ['raw p50 / p95 ms', (r) => `${fmt.ms(p50(`raw.${r.key}`))} / ${fmt.ms(p95(`raw.${r.key}`))}`, 'right'],
          ['API ÷ raw p50', (r) => fmt.ratio(p50(`api.${r.key}`) / p50(`raw.${r.key}`)), 'right'],
          ['RCU per request', (r) => ((o) => (o ? Number(rcu(o.calls).toFixed(1)) : '–'))(opOf(r.key)), 'right'],
          [`aim`, (r) => (r.listing ? (p95(`api.${r.key}`) <= AIM_P95_MS ? `p95 ≤ ${AIM_P95_MS} ms: met` : `p95 ≤ ${AIM_P95_MS} ms: **not met**`) : p50(`api.${r.key}`) / p50(`raw.${r.key}`) <= AIM_RATIO ? `÷ raw ≤ ${AIM_RATIO}×: met` : `÷ raw ≤ ${AIM_RATIO}×: **not met**`)],
        ]),
        bullets([
          `Default page: ${Number(rcu(opOf('default')!.calls).toFixed(1))} RCU per request (aim ≤ ${AIM_RCU}: ${rcu(opOf('default')!.calls) <= AIM_RCU ? 'met' : '**not met**'}); its reads do not depend on the organization's size (the first 5 entries of one partition, the count, 5 users).`,
          `Writing one user (\`registerUser\`: e-mail claim, Cognito, one transaction), ${WRITES} times into each organization, the same name, e-mail shape and company: ${wcu.map(([label, w]) => `into ${label} a transaction of **${median(w.txItems)} items** (DynamoDB Local reports ${median(w.tx)} WCU for it; DynamoDB charges a transaction 2 WCU per item and KB, so at least ${2 * median(w.txItems)}), ${median(w.wcu)} WCU in all, ${fmt.ms(median(w.ms))} ms median`).join('; ')}.`,
        ]),
      ],
      Setup: [
        bullets([
          `A fresh local stack (\`infra/local/main.ts --fresh\`, PORT=0): gateway and handler modules in one Node process, DynamoDB Local in a JVM (data on disk), the bench a third process on the same machine.`,
          `Organization \`${big.admin.name}\` made by \`createOrganization\` (its ADMIN registered in cognito-local; the bench signs in with a password grant), one environment and bot. The other ${fmt.int(users.length)} users written straight into the table as the product stores them (\`storedItemsOf\` in bench/users.data.ts: the user item with \`countedStatus\`, the items of \`indexWrites(user, undefined)\`, the e-mail claim marked done; no Cognito account, which no measured operation reads): ${fmt.int(seeded.items)} items in ${fmt.int(seeded.requests)} \`BatchWriteItem\` requests, 16 in flight, **${fmt.s(seeded.ms)}** (${fmt.int(users.length / (seeded.ms / 1000))} users/s, ${fmt.int(seeded.items / (seeded.ms / 1000))} items/s), then the count item moved once by the totals. A second organization of ${fmt.int(SMALL_ORG)} users the same way (${fmt.s(smallSeeded.ms)}).`,
          `Nothing lost (checked in ${fmt.s(checkMs)}): the count item says ${fmt.int(count.ACTIVE ?? 0)} ACTIVE and ${fmt.int(count.DELETED ?? 0)} DELETED (the ADMIN included), and every listing partition holds exactly every user of its status: ${partitionSizes.join('; ')}.`,
          `The users: VIEWERs of that bot, seeded names of many languages (${fmt.int(users.filter((u) => /[^\u0020-\u007e]/.test(u.name)).length)} with non-ASCII letters), ${fmt.int(users.filter((u) => u.company).length)} with one of 30 companies, ${fmt.int(expectedDeleted)} DELETED.`,
          `\`searchTerms=${searchTerms}\` matches ${expected.get('search')!.total} active users; \`searchTerms=${SHORT_TERMS}\` ${SHORT_REFUSED ? `is refused with 422 past ${fmt.int(SHORT_SEARCH_MAX_USERS)} users (10 requests, all 422, median ${fmt.ms(median(refusals.map((r) => r.ms)))} ms)` : fmt.int(expected.get('short')!.total)}; quicksearch \`${QUICK_TERM}\` ${users.filter((u) => u.status === 'ACTIVE' && quickMatches(QUICK_TERM, u.name)).length} active users' names (it returns the first ${quick.limit}).`,
          `Each cheap series: ${WARM_UP} unmeasured requests, then ${SAMPLES} measured, one at a time, in alternating blocks of 10 (${fmt.s(cheapMs)}); the heavy ones (a deep page, a search without a word of ${POSTING_PREFIX} characters, quicksearch after a write: each reads a whole partition or 20,000 entries) 2 then ${HEAVY}, blocks of 5 (${fmt.s(heavyMs)}). Quicksearch after a write: before each request, untimed, \`saveUser\` rewrites one user (same fields, new \`updatedAt\`), which moves the count's version. Every API response is checked against what the product returned in process before measuring. Raw reads: the product's document client in the bench process, the same reads the product makes, without its decoding, sorting or merging.`,
        ]),
      ],
      'DynamoDB calls and units per request': [
        table(operations, [
          ['request', (o) => o.label],
          ['DynamoDB calls, in order', (o) => describeCalls(o.calls)],
          ['items read', (o) => sum(o.calls.map((c) => c.items)), 'right'],
          ['RCU', (o) => Number(rcu(o.calls).toFixed(1)), 'right'],
        ]),
        `Recorded on one request of each kind sent to the users handler running in the bench process behind the local gateway (\`inProcessGateway\` in bench/harness/stack.ts), by a middleware on the product's clients asking \`ReturnConsumedCapacity: TOTAL\`; units as DynamoDB Local reports them. \`identity-provider\` is what every request pays before its own reads (${Number(authRcu.toFixed(1))} RCU).`,
      ],
      'Latency (ms)': [
        table(all, [
          ['series', (s) => s.label],
          ['n', (s) => s.samples.length, 'right'],
          ['p50', (s) => fmt.ms(p50(s.key)), 'right'],
          ['p95', (s) => fmt.ms(p95(s.key)), 'right'],
          ['p99', (s) => fmt.ms(f.p(s.key, 99)), 'right'],
          ['handler `durationMs` p50', (s) => (f.handler(s.key).length ? fmt.ms([...f.handler(s.key)].sort((a, b) => a - b)[Math.floor(f.handler(s.key).length / 2)]!) : '–'), 'right'],
        ]),
      ],
    };
  },
});
