import { parseJson } from './kernel/parse-json';

/**
 * What `npm start` prints while it runs (docs/local-stack.md#what-the-terminal-shows): every JSON line
 * the functions and the stack write passes through `terminalLine`, which keeps, reshapes or drops it by
 * the log mode. Lines that are not JSON (the banner, a tool's own message) pass unchanged.
 */

export const LOG_MODES = ['requests', 'json', 'quiet'] as const;
/** `requests` (default): a line per request, warnings and errors in full; `json`: every line as written; `quiet`: warnings and errors. */
export type LogMode = (typeof LOG_MODES)[number];
/** The variable that chooses the mode when `--log` is not given (test stacks, tools). */
export const LOG_MODE_VARIABLE = 'LOCAL_LOG';

export const isLogMode = (value: string): value is LogMode => (LOG_MODES as readonly string[]).includes(value);

type LogRecord = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);
/** The time, then the function that wrote the line (its resource group), else the part of the stack that did. */
const headOf = (record: LogRecord) =>
  `${(text(record.timestamp) ?? new Date().toISOString()).slice(11, 19)} ${(text(record.function) ?? text(record.function_name) ?? text(record.source) ?? 'stack').replace(/^local-/, '').padEnd(14)}`;

const parsed = (line: string): LogRecord | undefined => {
  const value = parseJson(line);
  return typeof value === 'object' && value !== null ? (value as LogRecord) : undefined;
};

/** The line as the terminal shows it in `mode`, or undefined when that mode leaves it out. */
export function terminalLine(line: string, mode: LogMode): string | undefined {
  const record = mode === 'json' || !line.startsWith('{') ? undefined : parsed(line);
  if (!record) return line;
  const level = text(record.level)?.toUpperCase();
  const requestId = text(record.requestId) ?? text(record.awsRequestId);
  if (level === 'WARN' || level === 'ERROR' || level === 'CRITICAL') {
    // In full: the record as written, after what a reader looks for first.
    return `${headOf(record)} ${level} ${text(record.message) ?? ''}${requestId ? `  request ${requestId}` : ''}  ${line}`;
  }
  if (mode === 'requests' && record.message === 'request completed') {
    return `${headOf(record)} ${text(record.method)} ${text(record.path)} ${text(record.status)} ${text(record.durationMs)} ms  ${requestId ?? ''}`.trimEnd();
  }
  // Metrics (EMF), AWS call totals and the functions' other INFO and DEBUG lines: `--log json` shows them.
  return undefined;
}

/** Puts `terminalLine` between the process and its stdout and stderr, line by line; JSON mode leaves them alone. */
export function applyLogMode(mode: LogMode, streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  if (mode === 'json') return;
  for (const stream of streams) {
    // A write as Node's streams take it: the chunk, then an encoding and/or a callback.
    const write = stream.write.bind(stream) as (chunk: string, ...rest: unknown[]) => boolean;
    let partial = '';
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const lines = (partial + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))).split('\n');
      // A line not yet ended: held if it may be a JSON line, else written as it is (a prompt, a progress dot).
      const last = lines.pop()!;
      partial = last.startsWith('{') ? last : '';
      const out = lines.flatMap((line) => terminalLine(line, mode) ?? []).map((line) => `${line}\n`).join('') + (partial ? '' : last);
      if (out !== '') return write(out, ...rest);
      const callback = rest.find((arg): arg is () => void => typeof arg === 'function');
      if (callback) queueMicrotask(callback);
      return true;
    }) as typeof stream.write;
  }
}
