import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getDocument, postJson } from '../../shared/adapters/http/outbound-http';

/**
 * `getDocument`, the bounded GET an OpenID provider's discovery document is read with, against a
 * server of the test's on 127.0.0.1 (allowed as the local stack allows it): the whole body within the
 * bound, a larger one refused, a redirect not followed, a private address refused before any request.
 */

let server: Server;
let base: string;
const requests: string[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (request.url === '/big') return void response.writeHead(200).end('x'.repeat(5000));
    if (request.url === '/moved') return void response.writeHead(302, { location: '/doc' }).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: 'here', padding: 'y'.repeat(3000) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = { allowLoopbackHttp: true, maxBytes: 4096, timeoutMs: 2000 };

test('reads the whole document within the bound', async () => {
  const outcome = await getDocument(new URL(`${base}/doc`), { accept: 'application/json' }, options);
  expect(outcome).toMatchObject({ ok: true, status: 200, tooLarge: false });
  expect(JSON.parse(outcome.body)).toMatchObject({ issuer: 'here' });
  expect(requests).toContain('GET /doc');
});

test('a document larger than the bound is refused, not cut', async () => {
  const outcome = await getDocument(new URL(`${base}/big`), {}, options);
  expect(outcome).toMatchObject({ ok: false, tooLarge: true, body: '' });
});

test('a redirect is not followed', async () => {
  const outcome = await getDocument(new URL(`${base}/moved`), {}, options);
  expect(outcome).toMatchObject({ ok: false, status: 302, failure: 'redirect' });
  expect(requests.filter((line) => line === 'GET /doc')).toHaveLength(1);
});

test('a loopback address is refused when loopback http is not allowed, before any request', async () => {
  const before = requests.length;
  const outcome = await getDocument(new URL(`${base}/doc`), {}, { ...options, allowLoopbackHttp: false });
  expect(outcome).toMatchObject({ ok: false, status: null, failure: 'refused-address' });
  expect(requests).toHaveLength(before);
});

test("a webhook's POST keeps nothing of the answer but its status", async () => {
  const outcome = await postJson(new URL(`${base}/doc`), { 'content-type': 'application/json' }, '{}', { allowLoopbackHttp: true, timeoutMs: 2000 });
  expect(outcome).toEqual({ ok: true, status: 200, latencyMs: expect.any(Number) });
});

test('a refused address names the rule of its caller', async () => {
  const outcome = await getDocument(new URL('https://10.0.0.1/.well-known/openid-configuration'), {}, { ...options, rule: 'discovery documents are read from public addresses only' });
  expect(outcome.detail).toBe("The URL's address is a private, loopback, link-local or reserved address: discovery documents are read from public addresses only");
});
