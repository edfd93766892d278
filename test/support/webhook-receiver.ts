import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook receiver for tests: a real HTTP server on 127.0.0.1 that keeps what it was sent. */

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * How the receiver answers its n-th request (0-based): a status, `hang` (never answers), or `drop`
 * (reads the delivery, then closes the connection unanswered, as a receiver that crashes).
 */
export type Answer = number | 'hang' | 'drop';

export interface Receiver {
  url: string;
  received: Received[];
  /** The parsed bodies of what was received whose CloudEvent `type` ends with `suffix`. */
  events(suffix?: string): Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startReceiver(answer: (index: number, body: string) => Answer = () => 204, options: { delayMs?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = received.length;
      received.push({ headers: request.headers, body, at: Date.now() });
      const how = answer(index, body);
      if (how === 'hang') return;
      if (how === 'drop') return void request.socket.destroy();
      setTimeout(() => response.writeHead(how).end(how >= 300 && how < 400 ? '' : 'thanks'), options.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    events: (suffix = '') =>
      received.map((entry) => JSON.parse(entry.body) as Record<string, unknown>).filter((event) => String(event.type).endsWith(suffix)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polling), or fails with `what` after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await pause(100);
  }
}
