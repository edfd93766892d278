import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startDynamoDBLocal, type DynamoDBLocal } from './dynamodb-local';
import { parseJson } from './kernel/parse-json';

/** Where the emulators listen: loopback only. */
export const HOST = '127.0.0.1';

export type EmulatorName = 'dynamodb' | 's3' | 'cognito' | 'ses';
/** The emulators' ports, and the demo OpenID provider's (infra/local/demo-sso.ts). */
export type Ports = Partial<Record<EmulatorName | 'oidc', number>>;

/** The file that keeps the emulators' ports with the data, so that their URLs survive a restart. */
export const portsFile = (dataDir: string) => join(dataDir, 'ports.json');

/** The ports the emulators had last time with this data directory. */
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
