/**
 * Every AWS call the product's clients make in this process, recorded while asked: service, command,
 * time, keys asked, items returned, and for DynamoDB the read and write units it consumed
 * (`ReturnConsumedCapacity: TOTAL`). Installed through the product's own client hook
 * (`addClientPlugin`), so it sees exactly the calls the product code makes.
 */
import { performance } from 'node:perf_hooks';
import { addClientPlugin, type ClientPlugin } from '../../shared/clients/client-options';

/** One call: sent when and for how long, keys asked for or written (a transaction's items), items returned, keys left unprocessed, units. */
export type Call = { service: string; command: string; sentAt: number; ms: number; keys: number; items: number; unprocessed: number; read: number; write: number };

const SERVICES: Record<string, string> = { DynamoDBClient: 'dynamodb', CognitoIdentityProviderClient: 'cognito', SESv2Client: 'ses', S3Client: 's3' };
const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

let sink: ((call: Call) => void) | undefined;
let askCapacity = false;
let installed = false;

type Input = { ReturnConsumedCapacity?: string; Key?: unknown; TransactItems?: unknown[]; RequestItems?: Record<string, { Keys?: unknown[] } | unknown[]> };
type Units = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
type Output = { Item?: unknown; Items?: unknown[]; Responses?: Record<string, unknown[]>; UnprocessedKeys?: Record<string, { Keys?: unknown[] }>; ConsumedCapacity?: Units | Units[] };
type Next = (args: { input: object }) => Promise<{ output: object }>;

const count = <T>(record: Record<string, T> | undefined, size: (value: T) => number) => Object.values(record ?? {}).reduce((total, value) => total + size(value), 0);

/** What a finished call asked for, got back and consumed. */
function figures(command: string, input: Input, output: Output) {
  const write = WRITES.test(command);
  const units = [output.ConsumedCapacity ?? []].flat();
  return {
    keys: input.Key ? 1 : input.TransactItems ? input.TransactItems.length : count(input.RequestItems, (request) => (Array.isArray(request) ? request.length : (request.Keys?.length ?? 0))),
    items: output.Item ? 1 : (output.Items?.length ?? count(output.Responses, (items) => items.length)),
    unprocessed: count(output.UnprocessedKeys, (request) => request.Keys?.length ?? 0),
    read: units.reduce((total, u) => total + (u.ReadCapacityUnits ?? (write ? 0 : (u.CapacityUnits ?? 0))), 0),
    write: units.reduce((total, u) => total + (u.WriteCapacityUnits ?? (write ? (u.CapacityUnits ?? 0) : 0)), 0),
  };
}

const recorder: ClientPlugin = {
  applyToStack: (stack) =>
    (stack as unknown as { add(m: (next: Next, context: { clientName?: string; commandName?: string }) => Next, o: object): void }).add(
      (next, context) => async (args) => {
        const record = sink;
        if (!record) return next(args);
        const service = SERVICES[context.clientName ?? ''] ?? context.clientName ?? 'unknown';
        const command = (context.commandName ?? 'unknown').replace(/Command$/, '');
        const input = args.input as Input;
        if (askCapacity && service === 'dynamodb') input.ReturnConsumedCapacity = 'TOTAL';
        const sentAt = performance.now();
        let output: Output = {};
        try {
          const result = await next(args);
          output = result.output as Output;
          return result;
        } finally {
          record({ service, command, sentAt, ms: performance.now() - sentAt, ...figures(command, input, output) });
        }
      },
      { step: 'initialize', name: 'benchCallRecorder' },
    ),
};

/** Records into `into` until the returned function is called; `capacity` asks DynamoDB for consumed units. */
export function startRecording(into: (call: Call) => void, { capacity = true } = {}): () => void {
  if (!installed) addClientPlugin(recorder);
  installed = true;
  [sink, askCapacity] = [into, capacity];
  return () => (sink = undefined);
}

/** The calls `work` makes (run alone: nothing else may call AWS meanwhile). */
export async function recordCalls(work: () => Promise<unknown>): Promise<Call[]> {
  const calls: Call[] = [];
  const stop = startRecording((call) => calls.push(call));
  await work().finally(stop);
  return calls;
}

export type CommandFigure = { calls: number; ms: number; read: number; write: number };

/** Per `service command`: calls, time and units, and when each command was first sent. Keeps no call. */
export function tally() {
  const byCommand = new Map<string, CommandFigure>();
  const firstAt = new Map<string, number>();
  const add = (call: Call) => {
    const name = `${call.service} ${call.command}`;
    const figure = byCommand.get(name) ?? { calls: 0, ms: 0, read: 0, write: 0 };
    byCommand.set(name, { calls: figure.calls + 1, ms: figure.ms + call.ms, read: figure.read + call.read, write: figure.write + call.write });
    if (!firstAt.has(name)) firstAt.set(name, call.sentAt);
  };
  return { byCommand, firstAt, add, calls: (name: string) => byCommand.get(name)?.calls ?? 0 };
}
export type Tally = ReturnType<typeof tally>;

const units = (value: number, name: string) => (value > 0 ? `, ${Number(value.toFixed(1))} ${name}` : '');

/** "GetItem (1 item, 0.5 RCU) → GetItem ∥ GetItem → BatchGetItem of 32 keys (…)": ∥ joins calls in flight together. */
export const describeCalls = (calls: Call[]) =>
  calls
    .map((c, i) => {
      const before = calls[i - 1];
      const joint = !before ? '' : c.sentAt < before.sentAt + before.ms ? ' ∥ ' : ' → ';
      const what = c.keys > 1 ? `${c.command} of ${c.keys} keys` : c.command;
      const left = c.unprocessed > 0 ? `, **${c.unprocessed} left unprocessed**` : '';
      return `${joint}${what} (${c.items} item${c.items === 1 ? '' : 's'}${units(c.read, 'RCU')}${units(c.write, 'WCU')}${left})`;
    })
    .join('');
