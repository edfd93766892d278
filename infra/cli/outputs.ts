import { existsSync, readFileSync } from 'node:fs';

/** A bad argument or a missing file: the command line tools print its message alone and exit 2. */
export class UsageError extends Error {}

/** The stack `cdk deploy --outputs-file <file>` described: its name and outputs (`{ "<stack>": { "<key>": value } }`). */
export function readOutputs(file: string): { stackName: string; outputs: Record<string, string> } {
  if (!existsSync(file)) throw new UsageError(`No outputs file at ${file} (cdk deploy --outputs-file ${file})`);
  const stacks = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  const [stackName, outputs] = Object.entries(stacks)[0] ?? [];
  if (!stackName || !outputs) throw new UsageError(`${file} names no stack`);
  return { stackName, outputs };
}
