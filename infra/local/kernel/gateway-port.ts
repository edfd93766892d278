import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerStarting, withGatewayTimeouts } from './gateway-answers';
import type { Teardown } from './teardown';

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`Port ${port} is already in use`);
  }
}

/** Listens on loopback at `port` (0: a free one) and answers the port taken. */
export function listenOnLoopback(server: Server, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error));
    server.listen(port, '127.0.0.1', () => resolvePort((server.address() as AddressInfo).port));
  });
}

export const closeServer = (server: Server) =>
  new Promise<void>((done) => {
    server.closeAllConnections();
    server.close(() => done());
  });

/** A server of the stack on a free loopback port, its stop (`stop`, else closing it) handed to `teardown` as `name`: its URL. */
export async function serveOnLoopback(server: Server, name: string, teardown: Teardown, stop = () => closeServer(server)): Promise<string> {
  const url = `http://127.0.0.1:${await listenOnLoopback(server, 0)}`;
  teardown.add(name, stop);
  return url;
}

/** Answers `body` as JSON, in the content type of the AWS protocol the endpoint speaks. */
export function answerJson(response: ServerResponse, status: number, body: unknown, type = 'application/json', headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': type, ...headers });
  response.end(JSON.stringify(body));
}

/**
 * The gateway's port, held from the first moment by a server that answers "starting" (`answerStarting`)
 * until the gateway takes its requests over; it is released last, when the teardown gets to it.
 */
export async function holdGatewayPort(port: number, teardown: Teardown) {
  let serve: RequestListener | undefined;
  const server = withGatewayTimeouts(createServer((request, response) => (serve ?? answerStarting)(request, response)));
  const closed = new Promise<void>((done) => server.once('close', () => done()));
  /** Takes no more requests and ends those in progress: the first thing a stop does. */
  const stopServing = () => {
    if (server.listening) server.close();
    server.closeAllConnections();
  };
  const apiUrl = `http://127.0.0.1:${await listenOnLoopback(server, port)}`;
  teardown.add('gateway port', async () => {
    stopServing();
    await closed;
  });
  // serveWith hands the port's requests to the gateway (until then each is answered "starting").
  return { apiUrl, serveWith: (listener: RequestListener) => void (serve = listener), stopServing };
}
