/** The AWS calls of the product's clients in this process, with DynamoDB's units: a middleware installed through the product's own client hook (`addClientPlugin`). */
import { performance } from 'node:perf_hooks';
import { addClientPlugin, type ClientPlugin } from '../../shared/adapters/clients/client-options';
import { sum, table } from './series';

/** One call: sent when and for how long, keys asked for or written (a transaction's items), items returned, units. */
export type Call = { service: string; command: string; sentAt: number; ms: number; keys: number; items: number; read: number; write: number };
type Units = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
type Io = { Key?: unknown; TransactItems?: unknown[]; RequestItems?: Record<string, { Keys?: unknown[] }>; Item?: unknown; Items?: unknown[]; Responses?: Record<string, unknown[]>; ConsumedCapacity?: Units | Units[] };
type Next = (args: { input: object }) => Promise<{ output: object }>;
type Stack = { add(middleware: (next: Next, context: { clientName?: string; commandName?: string }) => Next, options: object): void };

/** What a finished call asked for, got back and consumed. */
function figures(command: string, input: Io, output: Io) {
  const write = /^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(command);
  const units = [output.ConsumedCapacity ?? []].flat();
  const reported = (kind: 'Read' | 'Write') => sum(units.map((u) => u[`${kind}CapacityUnits`] ?? ((kind === 'Write') === write ? (u.CapacityUnits ?? 0) : 0)));
  const keys = input.Key ? 1 : (input.TransactItems ?? Object.values(input.RequestItems ?? {})[0]?.Keys ?? []).length;
  return { keys, items: output.Item ? 1 : (output.Items ?? Object.values(output.Responses ?? {})[0] ?? []).length, read: reported('Read'), write: reported('Write') };
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
        const [sentAt, result] = [performance.now(), next(args)];
        const output = await result.then((r) => r.output as Io, () => ({}) as Io);
        record({ service, command, sentAt, ms: performance.now() - sentAt, ...figures(command, input, output) });
        return result;
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
  calls.map((c, i) => {
    const joint = i === 0 ? '' : c.sentAt < calls[i - 1]!.sentAt + calls[i - 1]!.ms ? ' ∥ ' : ' → ';
    return `${joint}${c.keys > 1 ? `${c.command} of ${c.keys} keys` : c.command} (${c.items} item${c.items === 1 ? '' : 's'}${units(c.read, 'RCU')}${units(c.write, 'WCU')})`;
  }).join('');

/** The DynamoDB calls each operation made (recorded on one in-process call), with items and units. */
export const callsTable = (operations: { label: string; calls: Call[] }[], head = 'operation') =>
  table(operations, [
    [head, (o) => o.label], ['DynamoDB calls, in order', (o) => describeCalls(o.calls)], ['items read', (o) => sum(o.calls.map((c) => c.items)), 'right'],
    ['RCU', (o) => Number(sum(o.calls.map((c) => c.read)).toFixed(1)), 'right'],
    ['WCU', (o) => Number(sum(o.calls.map((c) => c.write)).toFixed(1)), 'right'],
  ]);
