import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { withClientPlugins } from '../../shared/adapters/clients/client-options';
import { publishMetrics } from '../../shared/kernel/metrics';
import { captureLogs } from '../support/capture-logs';

/**
 * What on-call reads of each AWS call: a real SDK client, carrying the plugins every client of the
 * product gets, against a local HTTP server that answers as DynamoDB would.
 */

type Answer = { status: number; body: object; errorType?: string; delayMs?: number };

let server: Server;
let answers: Answer[] = [];
let endpoint = '';

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      const answer = answers.shift() ?? { status: 200, body: {} };
      setTimeout(() => {
        response.writeHead(answer.status, {
          'content-type': 'application/x-amz-json-1.0',
          ...(answer.errorType ? { 'x-amzn-errortype': answer.errorType } : {}),
        });
        response.end(JSON.stringify(answer.body));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const documentClient = () =>
  DynamoDBDocumentClient.from(
    withClientPlugins(
      new DynamoDBClient({
        region: 'us-east-1',
        endpoint,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        maxAttempts: 3,
      }),
    ),
  );

interface Line {
  level: string;
  message: string;
  [field: string]: unknown;
}

/** The log lines of `work` and of the invocation's end (`publishMetrics`), parsed. */
async function logsOf(work: () => Promise<void>): Promise<Line[]> {
  const lines = await captureLogs(async () => {
    await work();
    publishMetrics('timing-test', 'request-1');
  });
  return lines.map((line) => JSON.parse(line) as Line);
}

const secretKey = 'USER#ana@acme.example';

test('each call is a DEBUG line and the invocation one INFO line per service and operation: calls, failures, durations, attempts', async () => {
  answers = [
    { status: 200, body: { Item: { PK: { S: secretKey }, password: { S: 'Tmp-Secret-42!' } } }, delayMs: 30 },
    { status: 200, body: {}, delayMs: 10 },
    { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: `Service-Message-${secretKey}` }, errorType: 'ConditionalCheckFailedException' },
  ];
  const client = documentClient();

  const lines = await logsOf(async () => {
    await client.send(new GetCommand({ TableName: 'the-table', Key: { PK: secretKey, SK: 'PROFILE' } }));
    await client.send(new GetCommand({ TableName: 'the-table', Key: { PK: secretKey, SK: 'PROFILE' } }));
    await expect(client.send(new PutCommand({ TableName: 'the-table', Item: { PK: secretKey, password: 'Tmp-Secret-42!' }, ConditionExpression: 'attribute_not_exists(PK)' }))).rejects.toThrow();
  });

  const calls = lines.filter((line) => line.message === 'aws call');
  expect(calls.map(({ awsService, operation, outcome, attempts }) => ({ awsService, operation, outcome, attempts }))).toEqual([
    { awsService: 'DynamoDB', operation: 'GetItem', outcome: 'ok', attempts: 1 },
    { awsService: 'DynamoDB', operation: 'GetItem', outcome: 'ok', attempts: 1 },
    { awsService: 'DynamoDB', operation: 'PutItem', outcome: 'ConditionalCheckFailedException', attempts: 1 },
  ]);
  expect(calls.every((line) => line.level === 'DEBUG')).toBe(true);
  expect(calls[0]!.durationMs).toBeGreaterThanOrEqual(25);

  const totals = lines.filter((line) => line.message === 'aws calls');
  expect(totals.every((line) => line.level === 'INFO')).toBe(true);
  const getItem = totals.find((line) => line.operation === 'GetItem')!;
  expect(getItem).toMatchObject({ awsService: 'DynamoDB', calls: 2, failed: 0, attempts: 2 });
  expect(getItem).not.toHaveProperty('errors');
  expect(getItem.maxMs).toBeGreaterThanOrEqual(25);
  expect(getItem.totalMs).toBeGreaterThanOrEqual((getItem.maxMs as number) + 5);
  expect(totals.find((line) => line.operation === 'PutItem')).toMatchObject({ calls: 1, failed: 1, errors: { ConditionalCheckFailedException: 1 } });
  expect(totals).toHaveLength(2);

  // Names and figures only: no table, key, item, condition or error message of the service.
  const all = JSON.stringify(lines);
  for (const payload of ['the-table', secretKey, 'Tmp-Secret-42!', 'attribute_not_exists', 'Service-Message']) expect(all).not.toContain(payload);
});

test("a retried call is one call: its time covers every attempt, and its attempts are the SDK's", async () => {
  answers = [
    { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'try again' }, errorType: 'InternalServerError', delayMs: 20 },
    { status: 200, body: {}, delayMs: 20 },
  ];
  const lines = await logsOf(async () => {
    await documentClient().send(new GetCommand({ TableName: 'the-table', Key: { PK: 'a', SK: 'b' } }));
  });

  const [call] = lines.filter((line) => line.message === 'aws call');
  expect(call).toMatchObject({ operation: 'GetItem', outcome: 'ok', attempts: 2 });
  expect(call!.durationMs).toBeGreaterThanOrEqual(35);
  expect(lines.filter((line) => line.message === 'aws calls')).toEqual([expect.objectContaining({ calls: 1, failed: 0, attempts: 2 })]);
});

test('an invocation without AWS calls writes no totals, and each invocation starts afresh', async () => {
  answers = [{ status: 200, body: {} }];
  const first = await logsOf(() => documentClient().send(new GetCommand({ TableName: 't', Key: { PK: 'a', SK: 'b' } })).then(() => undefined));
  expect(first.filter((line) => line.message === 'aws calls')).toHaveLength(1);

  const second = await logsOf(async () => {});
  expect(second.filter((line) => line.message === 'aws calls' || line.message === 'aws call')).toEqual([]);
});
