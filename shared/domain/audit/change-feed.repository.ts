import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../adapters/clients/dynamodb';
import { keys } from '../../adapters/store/keys';
import { getItem, transactWrite, type TableWrite } from '../../adapters/store/table';
import { config } from '../../kernel/config';
import { sleep } from '../../kernel/retry';
import type { CloudEvent } from './cloud-event';
import { FEED_RETENTION_DAYS } from './change-feed';

/**
 * An organization's change feed in the store (docs/data-model.md#the-change-feed): a head holding the
 * last sequence number given, and one entry per event under its sequence number, gapless. An append
 * moves the head and writes its entries in one transaction, conditioned on the head it read, so
 * entries commit in sequence order and a consistent Query after any sequence number sees every entry
 * committed before it, with none missing in between.
 */

/** One entry as the feed reads it back. */
export interface FeedEntry {
  seq: number;
  eventType: string;
  /** The CloudEvent as JSON, exactly as it was published. */
  event: string;
  /** Epoch seconds after which the entry is no longer kept. */
  ttl: number;
}

/** Events appended in one transaction: two items each (entry and marker) and the head, within TransactWriteItems' 100 items. */
const EVENTS_PER_APPEND = 49;
/** And within its 4 MB: the entries' events, with room for the rest of the items. */
const BYTES_PER_APPEND = 3_000_000;
/** Rounds of reading the head and writing after it before the batch is left for the stream to retry. */
const APPEND_ROUNDS = 60;

/** The events in chunks one transaction can write, in order. */
function chunksOf(events: readonly CloudEvent[]): { event: CloudEvent; json: string }[][] {
  const chunks: { event: CloudEvent; json: string }[][] = [];
  let bytes = 0;
  for (const event of events) {
    const json = JSON.stringify(event);
    const last = chunks.at(-1);
    if (!last || last.length >= EVENTS_PER_APPEND || bytes + json.length > BYTES_PER_APPEND) {
      chunks.push([{ event, json }]);
      bytes = json.length;
    } else {
      last.push({ event, json });
      bytes += json.length;
    }
  }
  return chunks;
}

/**
 * Appends `events` of one organization to its feed, in order, each once: an event already in the feed
 * (a stream record handed over again) is left where it is. Returns how many were appended.
 */
export async function appendToFeed(orgUuid: string, events: readonly CloudEvent[]): Promise<number> {
  let appended = 0;
  for (const chunk of chunksOf(events)) appended += await appendChunk(orgUuid, chunk);
  return appended;
}

async function appendChunk(orgUuid: string, chunk: { event: CloudEvent; json: string }[]): Promise<number> {
  let pending = chunk;
  for (let round = 1; pending.length > 0; round++) {
    const head = (await getItem<{ seq: number }>(keys.feedHead(orgUuid), { consistent: true }))?.seq ?? 0;
    const failed = await writeAfter(orgUuid, head, pending);
    if (failed === undefined) return pending.length;
    // Write i's marker is write 2i + 1 (the head is write 0). A refused marker is read back before its
    // event is taken for appended: only a marker that exists counts.
    const present = await presentMarkers(orgUuid, pending, failed.filter((index) => index % 2 === 1).map((index) => (index - 1) / 2));
    if (present.size > 0) {
      pending = pending.filter((_, index) => !present.has(index));
      continue;
    }
    // Another append moved the head first: read it again, after a pause that spreads the contenders.
    if (round >= APPEND_ROUNDS) throw new Error(`The change feed's head kept moving: ${pending.length} events not appended after ${round} rounds`);
    await sleep(Math.min(200, 5 * round) * (0.5 + Math.random()));
  }
  return 0;
}

/** Which of the events at `indexes` of `pending` have their marker, read consistently. */
async function presentMarkers(orgUuid: string, pending: { event: CloudEvent }[], indexes: number[]): Promise<Set<number>> {
  const found = await Promise.all(indexes.map(async (index) => ((await getItem(keys.feedMarker(orgUuid, pending[index]!.event.id), { consistent: true })) ? [index] : [])));
  return new Set(found.flat());
}

/** Writes the entries after `head` and moves the head past them; the indexes of the writes whose condition failed, or undefined once written. */
async function writeAfter(orgUuid: string, head: number, pending: { event: CloudEvent; json: string }[]): Promise<number[] | undefined> {
  const now = Date.now();
  const ttl = Math.floor(now / 1000) + FEED_RETENTION_DAYS * 86_400;
  const appendedAt = new Date(now).toISOString();
  const writes: TableWrite[] = [
    {
      Put: {
        Item: { ...keys.feedHead(orgUuid), type: 'FEED_HEAD', seq: head + pending.length },
        ...(head === 0 ? { ConditionExpression: 'attribute_not_exists(PK)' } : { ConditionExpression: '#seq = :head', ExpressionAttributeNames: { '#seq': 'seq' }, ExpressionAttributeValues: { ':head': head } }),
      },
    },
    ...pending.flatMap(({ event, json }, index): TableWrite[] => [
      {
        Put: {
          Item: { ...keys.feedMarker(orgUuid, event.id), type: 'FEED_MARKER', seq: head + index + 1, ttl },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        // Never over an entry: one at a place the head had not reached would be a broken feed, not one to overwrite.
        Put: {
          Item: { ...keys.feedEntry(orgUuid, head + index + 1), type: 'FEED_ENTRY', seq: head + index + 1, eventId: event.id, eventType: event.type, event: json, appendedAt, ttl },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    ]),
  ];
  try {
    const failed = await transactWrite(writes);
    return failed.length === 0 ? undefined : failed;
  } catch (error) {
    // Contenders' transactions on the head that kept colliding: the same as a head that moved.
    if (error instanceof TransactionCanceledException) return [0];
    throw error;
  }
}

/** The last sequence number given in the feed (0 before the first event), read consistently. */
export async function readFeedHead(orgUuid: string): Promise<number> {
  return (await getItem<{ seq: number }>(keys.feedHead(orgUuid), { consistent: true }))?.seq ?? 0;
}

/** Up to `max` entries after `afterSeq`, in order, read consistently (expired ones included: the caller judges them). */
export async function readFeedEntries(orgUuid: string, afterSeq: number, max: number): Promise<FeedEntry[]> {
  const range = keys.feedEntries(orgUuid);
  const entries: FeedEntry[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#seq': 'seq', '#ttl': 'ttl', '#event': 'event' },
        ExpressionAttributeValues: { ':pk': range.PK, ':from': keys.feedEntry(orgUuid, afterSeq + 1).SK, ':to': range.last },
        ProjectionExpression: '#seq, eventType, #event, #ttl',
        ConsistentRead: true,
        Limit: max - entries.length,
        ExclusiveStartKey: start,
      }),
    );
    entries.push(...((page.Items ?? []) as FeedEntry[]));
    start = page.LastEvaluatedKey;
  } while (start && entries.length < max);
  return entries;
}

/**
 * The sequence number of the oldest entry kept at `nowSeconds`, or undefined when none is. Entries
 * expire in sequence order (each is kept the same time from its append), so those past their time
 * that TTL has not removed yet are the first ones: only their sequence numbers are read.
 */
export async function oldestKeptSeq(orgUuid: string, nowSeconds: number): Promise<number | undefined> {
  const range = keys.feedEntries(orgUuid);
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        FilterExpression: '#ttl > :now',
        ExpressionAttributeNames: { '#seq': 'seq', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':pk': range.PK, ':from': range.first, ':to': range.last, ':now': nowSeconds },
        ProjectionExpression: '#seq',
        ConsistentRead: true,
        Limit: 200,
        ExclusiveStartKey: start,
      }),
    );
    const first = (page.Items as { seq: number }[] | undefined)?.[0];
    if (first) return first.seq;
    start = page.LastEvaluatedKey;
  } while (start);
  return undefined;
}
