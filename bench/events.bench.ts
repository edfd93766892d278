/** `npm run bench:events` (docs/benchmarks.md#change-events): from a committed change to its webhook's receipt, at 10 and 100 a second. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { benchmark, type Context } from './harness/benchmark';
import { accessToken, apiCall, onCleanUp, orgUrl } from './harness/stack';
import { fmt, percentile, table, type Column } from './harness/series';

const [RATES, USERS] = [[10, 100], 100];

async function data({ stack, progress }: Context) {
  const [org, received] = [stack.info.orgs[0]!, new Map<string, number>()];
  const token = await accessToken(stack.info, org);
  const server = createServer(async (request, response) => {
    const event = JSON.parse(await text(request)) as { data?: { requestId?: string } };
    if (event.data?.requestId) received.set(event.data.requestId, performance.now());
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanUp(() => new Promise((resolve) => server.close(resolve)));
  const call = async (method: string, path: string, body: unknown, requestId?: string) =>
    JSON.parse(await apiCall(method, `${orgUrl(stack.info, org.uuid)}${path}`, token.bearer, body, requestId ? { 'x-request-id': requestId } : {})) as Record<string, unknown>;
  await call('POST', '/webhooks', { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, eventTypes: ['user.updated'] });
  progress(`creating ${USERS} users`);
  const [env, users] = [org.environments[0]!, [] as Record<string, unknown>[]];
  const grant = [{ environmentUuid: env.uuid, botUuid: env.bots[0]!.uuid }];
  for (let i = 0; i < USERS; i++) users.push(await call('POST', '/users', { name: `Bench ${i}`, email: `bench-events-${Date.now()}-${i}@example.test`, role: 'VIEWER', permissions: grant }));
  return { received, call, users, token };
}
type Data = Awaited<ReturnType<typeof data>>;

/** At each rate, `count` renames sent on schedule; each one's latency from its answer to its receipt. */
async function measure(d: Data, { size, progress }: Context) {
  const rows = [];
  for (const rate of RATES) {
    const count = size(rate * 30, 20);
    progress(`${count} changes at ${rate}/s`);
    await d.token.refresh();
    const [committed, start] = [new Map<string, number>(), performance.now()];
    const sends = Array.from({ length: count }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, start + (i * 1000) / rate - performance.now()));
      const [user, requestId] = [d.users[i % USERS]!, `bench-events-${rate}-${i}`];
      // A rename that meets the previous one of its user still running is refused (409): not a change, not counted.
      if (await d.call('PUT', `/users/${String(user.uuid)}`, { ...user, name: `Bench ${i}` }, requestId).then(() => true, () => false)) committed.set(requestId, performance.now());
    });
    await Promise.all(sends);
    for (const deadline = performance.now() + 60_000; [...committed.keys()].some((id) => !d.received.has(id)) && performance.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100));
    const latencies = [...committed].flatMap(([id, at]) => (d.received.has(id) ? [d.received.get(id)! - at] : []));
    rows.push({ rate, count: committed.size, achieved: count / ((Math.max(...committed.values()) - start) / 1000), delivered: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: Math.max(...latencies) });
  }
  return rows;
}

benchmark<Data, Awaited<ReturnType<typeof measure>>>({
  title: 'Change events: from a committed change to the webhook receipt', stack: true, data, measure,
  report: ({ measured }) => ({
    'Committed change → webhook receipt (local stack)': [
      `Renames of ${USERS} users sent on schedule at each rate (each its own request), one subscription; latency from the PUT's answer to the receiver reading the delivery with its request id. Percentiles nearest-rank. The aim is p95 under 2 s.`,
      table(measured, [
        ['changes/s asked', (r) => r.rate, 'right'], ['achieved', (r) => r.achieved.toFixed(1), 'right'], ['committed', (r) => r.count, 'right'], ['delivered', (r) => r.delivered, 'right'],
        ...(['p50', 'p95', 'max'] as const).map((key): Column<(typeof measured)[number]> => [key, (r) => fmt.s(r[key], 2), 'right']),
      ]),
    ],
  }),
});
