import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, ExpiredIteratorException, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { _Record as StreamRecord, Shard } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { EventSourceMapping } from './template/template-deployment';
import { matchesPattern } from '../../shared/app/change-events/change-stream';
import { defaultLog, destinationRecord, errorType, lambdaLog, pollerParts, pollUntilStopped, type PollerOptions } from './invoke';
import { sleep } from '../../shared/kernel/retry';
import { localFunctionArn } from './kernel/local-account';
import { deploymentOverrides } from './deployment/overrides';

/**
 * Lambda's event source mapping of the table's stream, on the local stack, with its filters, batch item
 * failures, bisection, retries, maximum record age and on-failure record as in AWS. Where each shard
 * was read to is kept in `checkpointFile`, so a restart resumes there.
 */

/** What Lambda sends a stream mapping's on-failure destination: where the records it gave up are in the stream. */
export type StreamFailureRecord = ReturnType<typeof destinationRecord<{ DDBStreamBatchInfo: { shardId: string; startSequenceNumber?: string; endSequenceNumber?: string; batchSize: number; streamArn: string } }>>;
type GiveUpCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

/** The mapping's settings, as the template declares them, and where it reads and delivers. */
export interface StreamPollerOptions
  extends Pick<EventSourceMapping, 'group' | 'batchSize' | 'bisectOnError' | 'retryAttempts' | 'maxRecordAgeSeconds' | 'filters'>,
    PollerOptions<DynamoDBStreamEvent, DynamoDBBatchResponse> {
  tableName: string;
  checkpointFile: string;
  /** The on-failure destination; without one, the records are dropped, as Lambda drops them. */
  onFailure?: (record: StreamFailureRecord) => Promise<void>;
}

const SHARDS_REFRESH_MS = 5_000;

/** Ends a page's delivery once the poller stops: the rest is read again on the next start, from the checkpoint. */
class Stopped extends Error {}

/** A stream record as Lambda hands it to the function (its dates in seconds, its stream named). */
function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    ...(record as unknown as DynamoDBRecord),
    eventSource: 'aws:dynamodb',
    eventSourceARN: streamArn,
    dynamodb: { ...(record.dynamodb as unknown as DynamoDBRecord['dynamodb']), ...(created ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}) },
  };
}

export function startStreamPoller(options: StreamPollerOptions): { stop(): Promise<void> } {
  const { group } = options;
  const say = lambdaLog(options.log ?? defaultLog, group);
  const { client, invoke } = pollerParts(group, 'stream', options, say);
  const dynamodb = new DynamoDBClient(client);
  const streams = new DynamoDBStreamsClient(client);
  // How often an idle stream is read, and the first wait before a failed batch is retried: the overrides table's.
  const pollMs = deploymentOverrides.streamPollMs.value;
  const retryBaseMs = deploymentOverrides.streamRetryBaseMs.value;
  const checkpoints = (existsSync(options.checkpointFile) ? JSON.parse(readFileSync(options.checkpointFile, 'utf8')) : {}) as Record<string, string>;
  const finished = new Set<string>(Object.keys(checkpoints).filter((key) => key.startsWith('done:')).map((key) => key.slice(5)));
  const iterators = new Map<string, string>();
  // The shards change rarely (DynamoDB Local rolls one over every few hours): described again every few seconds.
  let shards: Shard[] = [];
  let describedAt = 0;

  const saveCheckpoint = (shardId: string, sequenceNumber: string) => {
    checkpoints[shardId] = sequenceNumber;
    writeFileSync(options.checkpointFile, JSON.stringify(checkpoints));
  };

  const functionArn = localFunctionArn(group);
  const keeps = (record: DynamoDBRecord) => options.filters.length === 0 || options.filters.some((filter) => matchesPattern(record, filter));

  /** Describes `records` to the on-failure destination, and goes on. */
  async function giveUp(records: DynamoDBRecord[], where: { streamArn: string; shardId: string }, condition: GiveUpCondition, outcome: { awsRequestId: string; ok: boolean; attempts: number }) {
    const [startSequenceNumber, endSequenceNumber] = [records[0]!.dynamodb!.SequenceNumber, records.at(-1)!.dynamodb!.SequenceNumber];
    const DDBStreamBatchInfo = { shardId: where.shardId, startSequenceNumber, endSequenceNumber, batchSize: records.length, streamArn: where.streamArn };
    const failure = destinationRecord({ requestId: outcome.awsRequestId, functionArn, condition, attempts: outcome.attempts, failed: !outcome.ok }, { DDBStreamBatchInfo });
    const sent = options.onFailure ? await options.onFailure(failure).then(() => true, () => false) : false;
    const message = sent ? 'stream records given up: sent to the on-failure destination' : 'stream records given up and dropped (no on-failure destination took them)';
    say('ERROR', message, { condition, batchSize: records.length });
  }

  /** The records older than the mapping's maximum age, from the first. */
  const tooOld = (records: DynamoDBRecord[]) => {
    if (options.maxRecordAgeSeconds < 0) return 0;
    const oldest = Date.now() / 1000 - options.maxRecordAgeSeconds;
    const fresh = records.findIndex((record) => (record.dynamodb?.ApproximateCreationDateTime ?? Infinity) >= oldest);
    return fresh === -1 ? records.length : fresh;
  };

  /** Hands `records` to the function until they are done: handled, or given up to the on-failure destination. */
  async function deliver(batch: DynamoDBRecord[], where: { streamArn: string; shardId: string }, attempt = 0): Promise<void> {
    // No batch, retry or half of a split batch starts once the stack stops: its services go next.
    if (stopping.signal.aborted) throw new Stopped();
    let records = batch;
    const expired = tooOld(records);
    if (expired > 0) {
      await giveUp(records.slice(0, expired), where, 'RecordAgeExceeded', { awsRequestId: randomUUID(), ok: true, attempts: attempt });
      records = records.slice(expired);
      if (records.length === 0) return;
    }
    const result = await invoke({ Records: structuredClone(records) });
    let pending = records;
    if (result.ok) {
      const failures = result.result?.batchItemFailures ?? [];
      if (failures.length === 0) return;
      // Lambda retries from the lowest sequence number reported.
      const first = Math.min(...failures.map((failure) => records.findIndex((record) => record.dynamodb?.SequenceNumber === failure.itemIdentifier)));
      pending = first >= 0 ? records.slice(first) : records;
    } else if (options.bisectOnError && records.length > 1) {
      say('WARN', 'stream batch failed; splitting it in halves', { errorType: errorType(result.error) });
      const half = Math.ceil(records.length / 2);
      await deliver(records.slice(0, half), where, attempt);
      await deliver(records.slice(half), where, attempt);
      return;
    }
    if (options.retryAttempts >= 0 && attempt >= options.retryAttempts) {
      return giveUp(pending, where, 'RetryAttemptsExhausted', { awsRequestId: result.awsRequestId, ok: result.ok, attempts: attempt + 1 });
    }
    await delay(retryBaseMs * 2 ** Math.min(attempt, 5), undefined, { signal: stopping.signal }).catch(() => undefined);
    await deliver(pending, where, attempt + 1);
  }

  async function readShard(streamArn: string, shard: Shard): Promise<boolean> {
    const shardId = shard.ShardId!;
    let iterator = iterators.get(shardId);
    if (!iterator) {
      const after = checkpoints[shardId];
      const from = { StreamArn: streamArn, ShardId: shardId, ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON', SequenceNumber: after } as const;
      iterator = (await streams.send(new GetShardIteratorCommand(from))).ShardIterator!;
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
    const kept = records.map((record) => lambdaRecord(record, streamArn)).filter(keeps);
    for (let start = 0; start < kept.length; start += options.batchSize) {
      try {
        await deliver(kept.slice(start, start + options.batchSize), { streamArn, shardId });
      } catch (error) {
        if (!(error instanceof Stopped)) throw error;
        // Read to just before this batch: it and the rest of the page are delivered after a restart (at least once, as Lambda's retries).
        const next = records.findIndex((record) => record.dynamodb?.SequenceNumber === kept[start]!.dynamodb?.SequenceNumber);
        if (next > 0) saveCheckpoint(shardId, records[next - 1]!.dynamodb!.SequenceNumber!);
        return false;
      }
    }
    if (records.length > 0) saveCheckpoint(shardId, records.at(-1)!.dynamodb!.SequenceNumber!);
    if (page.NextShardIterator) iterators.set(shardId, page.NextShardIterator);
    else {
      iterators.delete(shardId);
      finished.add(shardId);
      saveCheckpoint(`done:${shardId}`, '1');
      describedAt = 0;
    }
    return records.length > 0;
  }

  async function shardsOf(streamArn: string): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const answer = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      shards.push(...(answer.StreamDescription?.Shards ?? []));
      start = answer.StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  const stopping = new AbortController();
  const running = (async () => {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`The table ${options.tableName} has no stream`);
    const readShards = async () => {
      if (Date.now() - describedAt > SHARDS_REFRESH_MS) [shards, describedAt] = [await shardsOf(streamArn), Date.now()];
      const known = new Set(shards.map((shard) => shard.ShardId));
      let busy = false;
      for (const shard of shards) {
        if (stopping.signal.aborted) break;
        const parent = shard.ParentShardId;
        // A child shard is read once its parent is read to its end, so one partition's records stay in order.
        if (finished.has(shard.ShardId!) || (parent && known.has(parent) && !finished.has(parent))) continue;
        busy = (await readShard(streamArn, shard)) || busy;
      }
      return busy;
    };
    const onError = (error: unknown) => say('ERROR', 'reading the table stream failed; trying again', { errorType: errorType(error) });
    await pollUntilStopped(stopping.signal, readShards, { idleMs: pollMs, afterErrorMs: pollMs }, onError);
  })();
  running.catch((error: unknown) => say('ERROR', 'the stream poller stopped', { errorType: errorType(error) }));

  return {
    stop: async () => {
      stopping.abort();
      // The batch in progress ends (no other starts); a function that runs long does not hold the stack up.
      await Promise.race([running.catch(() => undefined), sleep(2_000)]);
      dynamodb.destroy();
      streams.destroy();
    },
  };
}
