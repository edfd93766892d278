import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { startDynamoDBLocal, type DynamoDBLocal } from './dynamodb-local';
import { parseJson } from './kernel/parse-json';

export const HOST = '127.0.0.1';

export type EmulatorName = 'dynamodb' | 's3' | 'cognito' | 'ses';
/** The emulators' ports, and the demo OpenID provider's (infra/local/demo-sso.ts). */
export type Ports = Partial<Record<EmulatorName | 'oidc', number>>;

/** The file that keeps the emulators' ports with the data, so that their URLs survive a restart. */
export const portsFile = (dataDir: string) => join(dataDir, 'ports.json');

export function previousPorts(dataDir: string): Ports {
  const file = portsFile(dataDir);
  return ((existsSync(file) && parseJson(readFileSync(file, 'utf8'))) || {}) as Ports;
}

/** `port` if nothing listens on it now, else 0 (a free one): a restart keeps its URLs when it can. */
export function portIfFree(port: number | undefined): Promise<number> {
  if (!port) return Promise.resolve(0);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(0));
    probe.listen(port, HOST, () => probe.close(() => resolve(port)));
  });
}

/** Starts DynamoDB Local's JVM on its previous port when free; this module loads no emulator, so the JVM starts first. */
export function startDynamoDBLocalFor(dataDir: string): Promise<DynamoDBLocal> {
  const starting = portIfFree(previousPorts(dataDir).dynamodb).then((port) => startDynamoDBLocal(join(dataDir, 'dynamodb'), port));
  // Awaited by whoever takes it; a failure meanwhile (no Java) must not go unhandled.
  starting.catch(() => undefined);
  return starting;
}

/** Adds a port to the data directory's ports file (the emulators write theirs first). */
export function rememberPort(dataDir: string, name: keyof Ports, port: number): void {
  writeFileSync(portsFile(dataDir), JSON.stringify({ ...previousPorts(dataDir), [name]: port }, null, 2));
}

/** A loopback port taken now for an HTTP server that starts later: connections wait for it, then are handed over. */
export type HeldPort = Awaited<ReturnType<typeof holdPort>>;

async function listenOn(server: NetServer, port: number): Promise<number> {
  server.listen(port, HOST);
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

/** Holds `preferred` when it is free (a restart keeps its URLs), else a free port. */
export async function holdPort(preferred: number | undefined) {
  const waiting: Socket[] = [];
  // The holder accepted every connection, so its close waits for all of them: it ends them itself.
  const handed = new Set<Socket>();
  let target: Server | 'failed' | undefined;
  const pass = (socket: Socket) => {
    if (target === 'failed') return void socket.destroy();
    handed.add(socket);
    socket.once('close', () => handed.delete(socket));
    target!.emit('connection', socket);
    socket.resume();
  };
  const holder = createServer({ pauseOnConnect: true }, (socket) => (target ? pass(socket) : waiting.push(socket)));
  const port = preferred ? await listenOn(holder, preferred).catch(() => listenOn(holder, 0)) : await listenOn(holder, 0);
  // An accept error (too many open files) costs that connection, not the stack.
  holder.on('error', (error: NodeJS.ErrnoException) => console.error(JSON.stringify({ level: 'WARN', source: 'local-stack', message: `held port ${port}: ${error.code ?? error.name}` })));
  return {
    port,
    /** From now on connections go to `server` (which may listen elsewhere or nowhere); the waiting ones first. */
    handTo: (server: Server) => {
      target = server;
      for (const socket of waiting.splice(0)) pass(socket);
    },
    /** The server could not start: waiting and later connections are closed, so no client hangs. */
    fail: () => {
      target = 'failed';
      for (const socket of waiting.splice(0)) socket.destroy();
    },
    close: () =>
      new Promise<void>((done) => {
        for (const socket of [...waiting.splice(0), ...handed]) socket.destroy();
        holder.close(() => done());
      }),
  };
}
