import type { Server } from 'node:http';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { HOST } from './emulator-ports';

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
