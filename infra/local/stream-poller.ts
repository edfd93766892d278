import { existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { auditEventFilterPattern, matchesPattern } from '../../shared/change-events/change-stream';
import { changeStreamReading } from '../cloud/change-stream-reading';
import { defaultLog, errorType, functionTimeoutMs, invokeOnce, type LocalLog } from './invoke';

/**
 * Lambda's event source mapping of the table's stream, on the local stack: reads DynamoDB Local's
 * stream through the DynamoDB Streams API, shard by shard in order (a child shard after its parent),
 * keeps the records the mapping's filter keeps, and hands them in batches to the `events` handler as
 * the `events` function (so local IAM checks its calls). As in AWS: a batch item failure retries
 * from that record; an error splits the batch in halves; a batch still failing after its retries is
 * written to the dead-letter file (the SQS queue's stand-in) as Lambda's on-failure record, and the
 * reading goes on. Where each shard was read to is kept in `checkpointFile`, so a restart resumes there.
 */

type Handler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;

export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  handler: Handler;
  checkpointFile: string;
  deadLetterFile: string;
  /** Between two reads of an idle stream (Lambda polls a shard about 4 times a second). */
  pollMs?: number;
  /** The waits before each retry of a failed batch grow from this (Lambda's are about a second and up). */
  retryBaseMs?: number;
  log?: LocalLog;
}

export interface StreamPoller {
  stop(): Promise<void>;
}

const SHARDS_REFRESH_MS = 5_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A stream record as Lambda hands it to the function (its dates in seconds, its stream named). */
function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    ...(record as unknown as DynamoDBRecord),
    eventSource: 'aws:dynamodb',
    eventSourceARN: streamArn,
    dynamodb: {
      ...(record.dynamodb as unknown as DynamoDBRecord['dynamodb']),
      ...(created ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}),
    },
  };
}

export function startStreamPoller(options: StreamPollerOptions): StreamPoller {
  const region = 'us-east-1';
  const dynamodb = new DynamoDBClient({ endpoint: options.endpoint, region, credentials: options.credentials });
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, region, credentials: options.credentials });
  const log = options.log ?? defaultLog;
  const pollMs = options.pollMs ?? 200;
  const retryBaseMs = options.retryBaseMs ?? 200;
  const checkpoints: Record<string, string> = existsSync(options.checkpointFile)
    ? (JSON.parse(readFileSync(options.checkpointFile, 'utf8')) as Record<string, string>)
    : {};
  const finished = new Set<string>(Object.keys(checkpoints).filter((key) => key.startsWith('done:')).map((key) => key.slice(5)));
  const iterators = new Map<string, string>();
  let stopped = false;
  let forgetShards = () => undefined as void;
  const shardsChanged = () => forgetShards();

  const saveCheckpoint = (shardId: string, sequenceNumber: string) => {
    checkpoints[shardId] = sequenceNumber;
    writeFileSync(options.checkpointFile, JSON.stringify(checkpoints));
  };

  /** Hands `records` to the function until they are done: published, or given up to the dead-letter file. */
  async function deliver(records: DynamoDBRecord[], streamArn: string, shardId: string, attempt = 0): Promise<void> {
    const { attempt: outcome } = invokeOnce('events', options.handler, { Records: structuredClone(records) }, { timeoutMs: functionTimeoutMs('events') });
    const result = await outcome;
    let pending = records;
    if (result.ok) {
      const failures = result.result?.batchItemFailures ?? [];
      if (failures.length === 0) return;
      // Lambda retries from the lowest sequence number reported.
      const first = Math.min(...failures.map((failure) => records.findIndex((record) => record.dynamodb?.SequenceNumber === failure.itemIdentifier)));
      pending = first >= 0 ? records.slice(first) : records;
    } else if (records.length > 1) {
      log({ level: 'WARN', source: 'local-lambda', function: 'events', errorType: errorType(result.error), message: 'stream batch failed; splitting it in halves' });
      const half = Math.ceil(records.length / 2);
      await deliver(records.slice(0, half), streamArn, shardId, attempt);
      await deliver(records.slice(half), streamArn, shardId, attempt);
      return;
    }
    if (attempt >= changeStreamReading.retryAttempts) {
      const failure = {
        requestContext: { requestId: result.awsRequestId, functionArn: 'events', condition: 'RetryAttemptsExhausted', approximateInvokeCount: attempt + 1 },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: result.ok ? undefined : 'Unhandled' },
        version: '1.0',
        timestamp: new Date().toISOString(),
        DDBStreamBatchInfo: {
          shardId,
          startSequenceNumber: pending[0]!.dynamodb!.SequenceNumber,
          endSequenceNumber: pending.at(-1)!.dynamodb!.SequenceNumber,
          batchSize: pending.length,
          streamArn,
        },
      };
      appendFileSync(options.deadLetterFile, `${JSON.stringify(failure)}\n`);
      log({ level: 'ERROR', source: 'local-lambda', function: 'events', message: 'stream batch failed its retries: written to the dead-letter file', batchSize: pending.length });
      return;
    }
    await sleep(retryBaseMs * 2 ** Math.min(attempt, 5));
    await deliver(pending, streamArn, shardId, attempt + 1);
  }

  async function readShard(streamArn: string, shard: Shard): Promise<boolean> {
    const shardId = shard.ShardId!;
    let iterator = iterators.get(shardId);
    if (!iterator) {
      const after = checkpoints[shardId];
      const answer = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
          ...(after ? { SequenceNumber: after } : {}),
        }),
      );
      iterator = answer.ShardIterator!;
    }
    let page;
    try {
      page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    } catch (error) {
      if (!(error instanceof ExpiredIteratorException)) throw error;
      iterators.delete(shardId);
      return false;
    }
    const records = page.Records ?? [];
    const kept = records.map((record) => lambdaRecord(record, streamArn)).filter((record) => matchesPattern(record, auditEventFilterPattern));
    for (let start = 0; start < kept.length; start += changeStreamReading.batchSize) {
      await deliver(kept.slice(start, start + changeStreamReading.batchSize), streamArn, shardId);
    }
    if (records.length > 0) saveCheckpoint(shardId, records.at(-1)!.dynamodb!.SequenceNumber!);
    if (page.NextShardIterator) iterators.set(shardId, page.NextShardIterator);
    else {
      iterators.delete(shardId);
      finished.add(shardId);
      saveCheckpoint(`done:${shardId}`, '1');
      shardsChanged();
    }
    return records.length > 0;
  }

  async function shardsOf(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const answer = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ...(start ? { ExclusiveStartShardId: start } : {}) }));
      shards.push(...(answer.StreamDescription?.Shards ?? []));
      start = answer.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  const running = (async () => {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`The table ${options.tableName} has no stream`);
    let shards: Shard[] = [];
    let describedAt = 0;
    forgetShards = () => void (describedAt = 0);
    while (!stopped) {
      let busy = false;
      try {
        // The shards change rarely (DynamoDB Local rolls one over every few hours): described again every few seconds.
        if (Date.now() - describedAt > SHARDS_REFRESH_MS) [shards, describedAt] = [await shardsOf(streamArn), Date.now()];
        const known = new Set(shards.map((shard) => shard.ShardId));
        for (const shard of shards) {
          if (stopped) break;
          const parent = shard.ParentShardId;
          // A child shard is read once its parent is read to its end, so one partition's records stay in order.
          if (finished.has(shard.ShardId!) || (parent && known.has(parent) && !finished.has(parent))) continue;
          busy = (await readShard(streamArn, shard)) || busy;
        }
      } catch (error) {
        log({ level: 'ERROR', source: 'local-lambda', function: 'events', errorType: errorType(error), message: 'reading the table stream failed; trying again' });
      }
      if (!busy) await sleep(pollMs);
    }
  })();
  running.catch((error: unknown) => log({ level: 'ERROR', source: 'local-lambda', function: 'events', errorType: errorType(error), message: 'the stream poller stopped' }));

  return {
    stop: async () => {
      stopped = true;
      // A batch may be waiting to be retried: the poller ends at its next step, and does not hold the stack up.
      await Promise.race([running.catch(() => undefined), sleep(2_000)]);
      dynamodb.destroy();
      streams.destroy();
    },
  };
}
