import { PassThrough } from 'node:stream';
import { applyLogMode, terminalLine } from '../../infra/local/log-modes';

/** How each log mode of `npm start` shows the lines the functions and the stack write. */

const request = JSON.stringify({
  level: 'INFO',
  message: 'request completed',
  timestamp: '2026-12-06T23:21:25.123Z',
  function_name: 'local-users',
  requestId: 'req-1',
  method: 'GET',
  path: '/user-management/org/o-1/users',
  status: 200,
  durationMs: 12,
});
const awsCalls = JSON.stringify({ level: 'INFO', message: 'aws calls', function_name: 'local-publisher', operation: 'Query', calls: 3, failed: 0 });
const emf = JSON.stringify({ _aws: { Timestamp: 1, CloudWatchMetrics: [] }, service: 'auth', TokensGranted: 1 });
const warning = JSON.stringify({ timestamp: '2026-12-06T23:21:26.000Z', level: 'WARN', source: 'local-lambda', function: 'mail', awsRequestId: 'aws-2', message: 'retry in 1000 ms' });
const error = JSON.stringify({ level: 'ERROR', message: 'unhandled error', timestamp: '2026-12-06T23:21:27.000Z', function_name: 'local-bulk-worker', requestId: 'req-3', error: { name: 'Boom' } });

test('requests (default): a request line labelled with its function; warnings and errors in full with the request id; no metric, no AWS call totals', () => {
  expect(terminalLine(request, 'requests')).toBe('23:21:25 users          GET /user-management/org/o-1/users 200 12 ms  req-1');
  expect(terminalLine(warning, 'requests')).toBe(`23:21:26 mail           WARN retry in 1000 ms  request aws-2  ${warning}`);
  expect(terminalLine(error, 'requests')).toBe(`23:21:27 bulk-worker    ERROR unhandled error  request req-3  ${error}`);
  expect(terminalLine(awsCalls, 'requests')).toBeUndefined();
  expect(terminalLine(emf, 'requests')).toBeUndefined();
});

test('quiet: warnings and errors only', () => {
  expect([request, awsCalls, emf].map((line) => terminalLine(line, 'quiet'))).toEqual([undefined, undefined, undefined]);
  expect(terminalLine(warning, 'quiet')).toContain(warning);
  expect(terminalLine(error, 'quiet')).toContain(error);
});

test('json: every line as written', () => {
  for (const line of [request, awsCalls, emf, warning, error]) expect(terminalLine(line, 'json')).toBe(line);
});

test('a line that is not a JSON object passes unchanged in every mode (the banner, a tool\'s message)', () => {
  for (const line of ['Management API (local) ready in 2.9 s', '{not json', '  … seeding the demo organizations (2 s)', '']) {
    expect(terminalLine(line, 'requests')).toBe(line);
    expect(terminalLine(line, 'quiet')).toBe(line);
  }
});

test('on a stream: whole lines filtered, a JSON line split across writes held until it ends, other text written at once', () => {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream;
  let written = '';
  (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
  applyLogMode('requests', [stream]);

  stream.write(`${awsCalls}\n${request.slice(0, 20)}`);
  expect(written).toBe('');
  stream.write(`${request.slice(20)}\nready`);
  stream.write(`\n${emf}\n`);

  expect(written).toBe('23:21:25 users          GET /user-management/org/o-1/users 200 12 ms  req-1\nready\n');
});

test('json mode leaves the stream as it is', () => {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream;
  const write = stream.write;
  applyLogMode('json', [stream]);
  expect(stream.write).toBe(write);
});
