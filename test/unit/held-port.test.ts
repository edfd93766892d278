import { createServer, request, type Server } from 'node:http';
import { holdPort, type HeldPort } from '../../infra/local/emulator-ports';

// A port announced before its server exists: early clients wait, then everyone reaches the server itself.

const held: HeldPort[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((port) => port.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((done) => {
          server.closeAllConnections();
          server.close(done);
        }),
    ),
  );
});

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A server that answers its own name and the path, listening on no announced port. */
async function echo(name: string): Promise<Server> {
  const server = createServer((req, res) => res.end(`${name} ${req.url}`));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  servers.push(server);
  return server;
}

test('a request sent before the server starts waits for it, then is answered by it, as are later ones', async () => {
  const port = await holdPort(undefined);
  held.push(port);
  const early = get(port.port, '/early');
  let settled = false;
  void early.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(settled).toBe(false);

  port.handTo(await echo('late'));

  expect(await early).toEqual({ status: 200, body: 'late /early' });
  expect(await get(port.port, '/later')).toEqual({ status: 200, body: 'late /later' });
});

test('the preferred port is taken when free; when taken, another free one', async () => {
  const first = await holdPort(undefined);
  held.push(first);
  const second = await holdPort(first.port);
  held.push(second);
  expect(second.port).not.toBe(first.port);

  await first.close();
  held.splice(held.indexOf(first), 1);
  const third = await holdPort(first.port);
  held.push(third);
  expect(third.port).toBe(first.port);
});

test('a server that cannot start: waiting and later requests are refused at once, none hangs', async () => {
  const port = await holdPort(undefined);
  held.push(port);
  const early = get(port.port, '/early');
  await new Promise((resolve) => setTimeout(resolve, 50));

  port.fail();

  await expect(early).rejects.toThrow(/socket hang up|ECONNRESET/);
  await expect(get(port.port, '/later')).rejects.toThrow(/socket hang up|ECONNRESET/);
});
