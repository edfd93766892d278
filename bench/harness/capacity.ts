/**
 * Every AWS call the product's clients make in this process while `recordCalls` runs, with the
 * DynamoDB units it consumed (`ReturnConsumedCapacity: TOTAL`): a middleware installed through the
 * product's own client hook (`addClientPlugin`), so it sees exactly the calls the product code makes.
 */
import { performance } from 'node:perf_hooks';
import { addClientPlugin, type ClientPlugin } from '../../shared/adapters/clients/client-options';
import { sum } from './series';

/** One call: sent when and for how long, keys asked for or written (a transaction's items), items returned, units. */
export type Call = { service: string; command: string; sentAt: number; ms: number; keys: number; items: number; read: number; write: number };

type Units = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
/** What a call's input and output say of keys, items and units. */
type Io = { Key?: unknown; TransactItems?: unknown[]; RequestItems?: Record<string, { Keys?: unknown[] }>; Item?: unknown; Items?: unknown[]; Responses?: Record<string, unknown[]>; ConsumedCapacity?: Units | Units[] };
type Next = (args: { input: object }) => Promise<{ output: object }>;
type Stack = { add(middleware: (next: Next, context: { clientName?: string; commandName?: string }) => Next, options: object): void };

/** What a finished call asked for, got back and consumed. */
function figures(command: string, input: Io, output: Io) {
  const write = /^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(command);
  const units = [output.ConsumedCapacity ?? []].flat();
  const reported = (kind: 'Read' | 'Write') => sum(units.map((u) => u[`${kind}CapacityUnits`] ?? ((kind === 'Write') === write ? (u.CapacityUnits ?? 0) : 0)));
  return {
    keys: input.Key ? 1 : (input.TransactItems ?? Object.values(input.RequestItems ?? {})[0]?.Keys ?? []).length,
    items: output.Item ? 1 : (output.Items ?? Object.values(output.Responses ?? {})[0] ?? []).length,
    read: reported('Read'),
    write: reported('Write'),
  };
}

let sink: ((call: Call) => void) | undefined;
const recorder: ClientPlugin = {
  applyToStack: (stack) =>
    (stack as unknown as Stack).add(
      (next, context) => async (args) => {
        const record = sink;
        if (!record) return next(args);
        const service = (context.clientName ?? '').replace(/(IdentityProvider|v2)?Client$/, '').toLowerCase();
        const [command, input] = [(context.commandName ?? '').replace(/Command$/, ''), args.input as Io & { ReturnConsumedCapacity?: string }];
        if (service === 'dynamodb') input.ReturnConsumedCapacity = 'TOTAL';
        const sentAt = performance.now();
        let output: Io = {};
        try {
          const result = await next(args);
          output = result.output as Io;
          return result;
        } finally {
          record({ service, command, sentAt, ms: performance.now() - sentAt, ...figures(command, input, output) });
        }
      },
      { step: 'initialize', name: 'benchCallRecorder' },
    ),
};
let installed = false;

/** The calls `work` makes (run alone: nothing else may call AWS meanwhile). */
export async function recordCalls(work: () => Promise<unknown>): Promise<Call[]> {
  if (!installed) addClientPlugin(recorder);
  installed = true;
  const calls: Call[] = [];
  sink = (call) => calls.push(call);
  await work().finally(() => (sink = undefined));
  return calls;
}

const units = (value: number, name: string) => (value > 0 ? `, ${Number(value.toFixed(1))} ${name}` : '');

/** "GetItem (1 item, 0.5 RCU) → GetItem ∥ GetItem → BatchGetItem of 32 keys (…)": ∥ joins calls in flight together. */
export const describeCalls = (calls: Call[]) =>
  calls
    .map((c, i) => {
      const before = calls[i - 1];
      const joint = !before ? '' : c.sentAt < before.sentAt + before.ms ? ' ∥ ' : ' → ';
      const what = c.keys > 1 ? `${c.command} of ${c.keys} keys` : c.command;
      return `${joint}${what} (${c.items} item${c.items === 1 ? '' : 's'}${units(c.read, 'RCU')}${units(c.write, 'WCU')})`;
    })
    .join('');
