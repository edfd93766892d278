/**
 * `npm run bench:users`: the users area on an organization of 10,000 users. `GET /users` (default page,
 * `searchTerms`, ordered by name deep in the list), `GET /users/quicksearch` and `GET /users/{userId}`
 * through the local gateway next to raw DynamoDB reads of the same data, interleaved; the calls and units
 * each request makes; the product's listing functions timed whole in this process against the raw
 * directory read. Report: bench/users-figures.md.
 */
import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { performance } from 'node:perf_hooks';
import { authorizeOrgAdmin, authorizeUserAccess } from '../shared/access/org-access';
import { authenticate } from '../shared/auth/caller';
import { eachLimited } from '../shared/bulk/bulk-create.rules';
import { clientOptions } from '../shared/clients/client-options';
import { config } from '../shared/config';
import { addBot, addEnvironment, createOrganization } from '../shared/org/org-admin.service';
import { keys } from '../shared/store/keys';
import { quickMatches } from '../shared/text/matching';
import { listUsers, quicksearchUsers, readUser } from '../shared/users/user-queries';
import { DIRECTORY_SHARDS, readDirectory } from '../shared/users/user-directory';
import { claimEmail, putNewUser } from '../shared/users/user.repository';
import { quicksearchQuerySchema, userListQuerySchema } from '../shared/users/user.schemas';
import { describeCalls, recordCalls } from './harness/capacity';
import { batchGet, getItem, prefixQuery, query } from './harness/raw';
import { benchmark, bullets, callsTable, ratioTable, seriesTable, table } from './harness/report';
import { check, figures, interleave, series } from './harness/series';
import { accessToken, apiGet, startStack, useFunctionEnv } from './harness/stack';
import { fmt } from './harness/stats';
import { generateUsers, searchTermsFor } from './users.data';

const [NAME_PAGE, QUICK_TERM, AIM_P95_MS] = [50, 'jose gar', 150];

benchmark({
  name: 'users',
  script: 'bench:users',
  title: 'Users area: API against raw DynamoDB reads',
  async run({ size, mark, progress }) {
    const [USERS, SAMPLES, WARM_UP, PROFILE_RUNS] = [size(10_000, 600), size(300, 30), size(20, 5), size(40, 10)];
    const stack = await startStack();
    useFunctionEnv(stack);

    // An organization with a real ADMIN (Cognito and all); the other users written straight to the store
    // by the product's repository (e-mail claim, then user, directory entry and claim completion in one
    // transaction): no operation measured here reads Cognito, and 9,999 cognito-local accounts would take hours.
    const admin = { name: 'bench-users', admin: { email: 'admin@bench-users.example', password: 'Bench-Admin-1' } };
    const { organization: org } = await createOrganization({ name: admin.name, adminEmail: admin.admin.email, adminName: 'Bea Bench', adminPassword: admin.admin.password });
    const environment = await addEnvironment(org.uuid, 'Production');
    const bot = await addBot(org.uuid, environment.uuid, 'Support bot');
    const { users, firstNames } = generateUsers(org.uuid, { environmentUuid: environment.uuid, botUuid: bot.uuid }, USERS - 1);
    progress(`seeding ${fmt.int(USERS)} users`);
    const seedStarted = performance.now();
    await eachLimited(users, 16, async (user) => {
      check(await claimEmail(org.uuid, user.email, user.uuid, user.createdAt), `claimEmail refused ${user.email}`);
      check(await putNewUser(user), `putNewUser refused ${user.email}`);
    });
    const seedMs = performance.now() - seedStarted;
    mark('after seeding');
    const lost = async (when: string) => {
      const listed = new Set((await readDirectory(org.uuid)).map((entry) => entry.uuid));
      check(listed.size === USERS && users.every((user) => listed.has(user.uuid)), `${when}, the directory lists ${listed.size} of ${USERS} users`);
      return `${when}: all ${fmt.int(USERS)}`;
    };
    const checks = [await lost('after seeding')];

    const token = await accessToken(stack.info, admin);
    const caller = await authenticate(token.bearer);
    const scope = await authorizeOrgAdmin(caller, org.uuid);
    /** The handler's calls, in this process: authentication, authorization, the use case. */
    const asHandler = async <T>(work: (s: typeof scope) => Promise<T>) => work(await authorizeOrgAdmin(await authenticate(token.bearer), org.uuid));
    const base = `${stack.info.apiUrl}/${stack.info.userSubpath}/org/${org.uuid}/users`;
    const searchTerms = searchTermsFor(users, firstNames);
    const queryStrings = { list: '', search: `searchTerms=${encodeURIComponent(searchTerms)}`, byName: `orderBy=name&direction=ASC&page=${NAME_PAGE}` };
    const queries = Object.fromEntries(Object.entries(queryStrings).map(([k, q]) => [k, userListQuerySchema.parse(Object.fromEntries(new URLSearchParams(q)))])) as Record<keyof typeof queryStrings, ReturnType<typeof userListQuerySchema.parse>>;
    const quick = quicksearchQuerySchema.parse({ name: QUICK_TERM });
    const expected = {
      list: await listUsers(scope, queries.list),
      search: await listUsers(scope, queries.search),
      byName: await listUsers(scope, queries.byName),
    };
    const names = await quicksearchUsers(scope, quick.name, quick.limit);
    check(expected.search.total > 0 && names.length > 0, 'The search terms or the quicksearch term match nobody');
    const shardKeys = Array.from({ length: DIRECTORY_SHARDS }, (_, shard) => keys.userDirectoryShard(org.uuid, shard));
    const targets = Array.from({ length: WARM_UP + SAMPLES }, () => users[Math.floor(Math.random() * users.length)]!);

    const api = (url: (i: number) => string) => (i: number, id: string) => apiGet(url(i), token.bearer, id);
    const uuidsOf = (users: { uuid: string }[]) => users.map((user) => user.uuid).join();
    const listSeries = (key: keyof typeof expected, label: string) => [
      series(`api.${key}`, `API \`GET /users${queryStrings[key] ? `?${decodeURIComponent(queryStrings[key])}` : ''}\`${label}`, api(() => `${base}?${queryStrings[key]}`), (body) =>
        check(uuidsOf(JSON.parse(body as string).content) === uuidsOf(expected[key].users), `GET /users?${queryStrings[key]} returned another page`)),
      series(`raw.${key}`, `raw: \`BatchGetItem\` of the ${DIRECTORY_SHARDS} directory shards → of the page's ${expected[key].users.length} users`, async () => [
        await batchGet(shardKeys), await batchGet(expected[key].users.map((user) => keys.userKey(org.uuid, user.uuid))),
      ]),
    ];
    const main = [
      ...listSeries('list', ' (default page: 5 lines, createdAt DESC, ACTIVE)'),
      ...listSeries('search', ''),
      ...listSeries('byName', ''),
      series('api.quick', `API \`GET /users/quicksearch?name=${QUICK_TERM}\``, api(() => `${base}/quicksearch?name=${encodeURIComponent(QUICK_TERM)}`), (body) => check(body === JSON.stringify(names), 'Quicksearch returned other names')),
      series('raw.directory', `raw: \`BatchGetItem\` of the ${DIRECTORY_SHARDS} directory shards`, () => batchGet(shardKeys), (r) => check((r as { items: unknown[] }).items.length === DIRECTORY_SHARDS, 'A shard is missing')),
      series('api.get', `API \`GET /users/{userId}\` (a random user of the ${fmt.int(USERS - 1)})`, api((i) => `${base}/${targets[i]!.uuid}`), (body, i) => check(JSON.parse(body as string).uuid === targets[i]!.uuid, 'Another user')),
      series('raw.get', 'raw: `GetItem` of the same user item', (i) => getItem(keys.userKey(org.uuid, targets[i]!.uuid)), (item, i) => check((item as { uuid?: string })?.uuid === targets[i]!.uuid, 'GetItem missed')),
      series('api.floor', 'API `GET /users/identity-provider`: what every request costs (gateway, middy, JWT, caller `GetItem`)', api(() => `${base}/identity-provider`)),
      series('raw.auth', "raw: `GetItem` of the caller (authentication's read)", () => getItem(keys.userKey(org.uuid, caller.user.uuid))),
    ];
    progress(`measuring ${main.length} series`);
    const measureMs = await interleave(main, { warmUp: WARM_UP, block: 10, samples: SAMPLES, between: token.refresh });
    checks.push(await lost('after measuring'));

    // The product's listing functions timed whole in this process, against the raw read of the same shards
    // (document client: unmarshalled; low-level client with the same options: not).
    const lowLevel = new DynamoDBClient(clientOptions(config().endpoints.dynamodb));
    const marshalled = shardKeys.map(({ PK, SK }) => ({ PK: { S: PK }, SK: { S: SK } }));
    const profile = [
      series('p.rawLow', 'raw `BatchGetItem` of the shards, low-level client (not unmarshalled)', () => lowLevel.send(new BatchGetItemCommand({ RequestItems: { [config().tableName]: { Keys: marshalled } } }))),
      series('p.raw', 'raw `BatchGetItem` of the shards, document client (unmarshalled)', () => batchGet(shardKeys)),
      series('p.directory', '`readDirectory()`: the store\'s `getItems` of the shards, then every entry decoded', () => readDirectory(org.uuid)),
      series('p.list', '`listUsers()`, default page', () => listUsers(scope, queries.list)),
      series('p.search', `\`listUsers()\`, \`searchTerms=${searchTerms}\``, () => listUsers(scope, queries.search)),
      series('p.byName', `\`listUsers()\`, by name, page ${NAME_PAGE}`, () => listUsers(scope, queries.byName)),
      series('p.quick', `\`quicksearchUsers()\`, \`${QUICK_TERM}\``, () => quicksearchUsers(scope, quick.name, quick.limit)),
    ];
    progress('the product\'s functions in process');
    await interleave(profile, { warmUp: 5, block: 5, samples: PROFILE_RUNS });
    lowLevel.destroy();
    const naive = [series('raw.naive', `raw: the naive listing, \`Query\` of all ${fmt.int(USERS)} user items (no directory)`, () => query(prefixQuery(keys.userKey(org.uuid, '').PK, keys.userKey(org.uuid, '').SK)))];
    await interleave(naive, { warmUp: 2, block: 1, samples: size(20, 5) });

    const operations = [
      { label: '`GET /users` (default page)', calls: (await recordCalls(() => asHandler((s) => listUsers(s, queries.list)))).calls },
      { label: `\`GET /users?searchTerms=${searchTerms}\``, calls: (await recordCalls(() => asHandler((s) => listUsers(s, queries.search)))).calls },
      { label: `\`GET /users?${queryStrings.byName}\``, calls: (await recordCalls(() => asHandler((s) => listUsers(s, queries.byName)))).calls },
      { label: `\`GET /users/quicksearch?name=${QUICK_TERM}\``, calls: (await recordCalls(() => asHandler((s) => quicksearchUsers(s, quick.name, quick.limit)))).calls },
      { label: '`GET /users/{userId}`', calls: (await recordCalls(async () => readUser(await authorizeUserAccess(await authenticate(token.bearer), org.uuid, users[0]!.uuid, 'read'), users[0]!.uuid))).calls },
      { label: 'naive listing (raw, not the product)', calls: (await recordCalls(() => naive[0]!.run(0, ''))).calls },
    ];
    const { items: shards } = await batchGet(shardKeys);
    const shardBytes = shards.map((item) => Buffer.byteLength(JSON.stringify(item)));
    await stack.stop();

    const all = [...main, ...profile, ...naive];
    const f = figures(all, stack.handlerMs);
    const { p50, p95 } = f;
    const summary = [
      ['list', '`GET /users` (default page)', 'list'], ['search', `\`GET /users?searchTerms=${searchTerms}\``, 'search'], ['byName', `\`GET /users?${queryStrings.byName}\``, 'byName'],
      ['quick', `\`GET /users/quicksearch?name=${QUICK_TERM}\``, 'directory'], ['get', '`GET /users/{userId}`', 'get'],
    ].map(([key, label, raw]) => ({ label: label!, api: `api.${key}`, raw: `raw.${raw}` }));
    return {
      Summary: [
        table(summary, [
          ['request', (r) => r.label],
          ['API p50 / p95 ms', (r) => `${fmt.ms(p50(r.api))} / ${fmt.ms(p95(r.api))}`, 'right'],
          ['raw read of the same data', (r) => f.get(r.raw).label.replace(/^raw: /, '')],
          ['raw p50 / p95 ms', (r) => `${fmt.ms(p50(r.raw))} / ${fmt.ms(p95(r.raw))}`, 'right'],
          ['API ÷ raw p50 / p95', (r) => `**${fmt.ratio(p50(r.api) / p50(r.raw))} / ${fmt.ratio(p95(r.api) / p95(r.raw))}**`, 'right'],
          [`p95 < ${AIM_P95_MS} ms`, (r) => (r.api === 'api.get' ? '–' : p95(r.api) < AIM_P95_MS ? 'met' : '**not met**')],
        ]),
      ],
      Setup: [
        bullets([
          `A fresh local stack (\`infra/local/main.ts --fresh\`, PORT=0): gateway and handler modules in one Node process, DynamoDB Local in a JVM, the bench a third process on the same machine.`,
          `Organization \`${admin.name}\` made by \`createOrganization\` (its ADMIN registered in cognito-local; the bench signs in with a password grant), one environment and bot. The other ${fmt.int(USERS - 1)} users written by the product's repository, \`claimEmail\` then \`putNewUser\` (user, directory entry and claim in one transaction), skipping Cognito, 16 at a time: **${fmt.s(seedMs)}** (${((USERS - 1) / (seedMs / 1000)).toFixed(0)} users/s).`,
          `The users: VIEWERs of that bot, seeded names of many languages (${fmt.int(users.filter((u) => /[^\u0020-\u007e]/.test(u.name)).length)} with non-ASCII letters), ${fmt.int(users.filter((u) => u.company).length)} with one of 30 companies, ${fmt.int(users.filter((u) => u.status === 'DELETED').length)} DELETED. The directory: ${DIRECTORY_SHARDS} shards of ${fmt.kib(Math.min(...shardBytes))} to ${fmt.kib(Math.max(...shardBytes))} (${fmt.kib(shardBytes.reduce((a, b) => a + b, 0))} in all). Nothing lost: ${checks.join('; ')}.`,
          `\`searchTerms=${searchTerms}\` matches ${expected.search.total} active users; quicksearch \`${QUICK_TERM}\` ${users.filter((u) => u.status === 'ACTIVE' && quickMatches(QUICK_TERM, u.name)).length} active users' names (it returns the first ${quick.limit}).`,
          `Each series: ${WARM_UP} unmeasured operations, then ${SAMPLES} measured, one at a time, in alternating blocks of 10: ${fmt.s(measureMs)} in all. Every response is checked against what the product returned in process before measuring. Raw reads: the product's document client in the bench process.`,
        ]),
      ],
      'DynamoDB calls and units per request': [
        callsTable(operations, describeCalls),
        "Recorded on one in-process run of the handler's calls (`authenticate`, the authorization, the use case), by a middleware on the product's clients; units as DynamoDB Local reports `ConsumedCapacity`.",
      ],
      'Latency (ms)': [seriesTable(main, stack.handlerMs), seriesTable(naive)],
      'Ratios (API ÷ raw)': [
        ratioTable(all, [
          ...summary.map((r) => ({ ...r, label: `${r.label}: API ÷ ${f.get(r.raw).label.replace(/^raw: /, 'raw ')}` })),
          { label: "context, every request's floor: `identity-provider` ÷ the caller's `GetItem`", api: 'api.floor', raw: 'raw.auth' },
          { label: 'context: default page ÷ the naive listing', api: 'api.list', raw: 'raw.naive' },
        ]),
      ],
      'Where a listing spends its time': [
        `The product's functions called whole in the bench process (${PROFILE_RUNS} runs each after 5 warm-ups, interleaved), next to the raw read of the same shards. A function's time over \`readDirectory()\` is its filtering, sorting and page read; \`readDirectory()\` over the raw read is the store's \`getItems\` and decoding.`,
        table(profile, [
          ['in the bench process', (s) => s.label],
          ['p50 ms', (s) => fmt.ms(p50(s.key)), 'right'],
          ['over `readDirectory()`', (s) => (s.key.match(/p\.(list|search|byName|quick)/) ? fmt.ms(p50(s.key) - p50('p.directory')) : '–'), 'right'],
          ['API p50', (s) => (s.key.match(/p\.(list|search|byName|quick)/) ? fmt.ms(p50(s.key.replace('p.', 'api.'))) : '–'), 'right'],
        ]),
      ],
    };
  },
});
