import type { OrgScope } from '../../domain/users/org-scope';
import { decodeFeedCursor, encodeFeedCursor, selectTypes, typePatternsOf, type TypeSelection } from '../../domain/audit/change-feed';
import { oldestKeptSeq, readFeedEntries, readFeedHead, type FeedEntry } from '../../domain/audit/change-feed.repository';
import type * as z from 'zod/mini';
import type { changeFeedSchemas } from './change-feed.schemas';
import { config } from '../../kernel/config';
import { BadRequestError, GoneError } from '../../kernel/errors';
import { sleep } from '../../kernel/retry';

/**
 * Reading an organization's change feed (docs/api/events.md#the-change-feed): the events after a
 * cursor, oldest first, of the types asked for, waiting for the next one when asked to. Reads only.
 */

/** What a request asks for, validated: the cursor as sent, the types as sent, at most `limit` events, waiting up to `wait` seconds. */
export interface FeedQuery {
  after?: string | undefined;
  types?: string | undefined;
  limit: number;
  wait: number;
}

export interface FeedPage {
  events: FeedEvent[];
  /** The cursor after the last entry read (returned, or passed over by the type filter). */
  next: string;
}

/** An event as the feed answers it: the CloudEvent as published, stored as its JSON (`change-feed.schemas.ts` describes it). */
export type FeedEvent = z.output<ReturnType<typeof changeFeedSchemas>['changeEventSchema']>;

/** Entries read per request at most: a filter that selects few types passes over this many, then answers with `next` after them. */
const ENTRIES_PER_REQUEST = 500;
/** Events' bytes per answer at most, within Lambda's 6 MB answer: a page stops before the event that would pass it. */
const ANSWER_BYTES = 4_500_000;
/** How often a waiting request reads the feed again. */
const POLL_MS = 300;

/** The organization's events after `query.after` (or from the oldest kept), at most `limit`, waiting up to `wait` seconds for the first. */
export async function readChangeFeed(scope: OrgScope, query: FeedQuery): Promise<FeedPage> {
  const { orgUuid } = scope;
  const selection = selectTypes(typePatternsOf(query.types), config().events.typePrefix);
  const deadline = Date.now() + query.wait * 1000;
  let position = query.after === undefined ? await startOfFeed(orgUuid) : decodeFeedCursor(query.after, orgUuid);
  // The first read that finds nothing checks the cursor against the head; later ones need not.
  let checked = false;
  for (;;) {
    const page = await pageAfter(orgUuid, position, selection, query.limit, checked);
    checked = true;
    position = page.position;
    const left = deadline - Date.now();
    if (page.events.length > 0 || left <= 0) return { events: page.events, next: encodeFeedCursor(orgUuid, position) };
    await sleep(Math.min(POLL_MS, left));
  }
}

/** Where a request without a cursor starts: before the oldest entry kept, or, with none kept, after the last one given. */
async function startOfFeed(orgUuid: string): Promise<number> {
  const oldest = await oldestKeptSeq(orgUuid, Math.floor(Date.now() / 1000));
  return oldest === undefined ? readFeedHead(orgUuid) : oldest - 1;
}

/** The selected events after `position`, and the position after the last entry read. */
async function pageAfter(orgUuid: string, position: number, selection: TypeSelection, limit: number, checked: boolean): Promise<{ events: FeedEvent[]; position: number }> {
  let entries = await readFeedEntries(orgUuid, position, ENTRIES_PER_REQUEST);
  if (entries.length === 0) {
    if (checked) return { events: [], position };
    const head = await readFeedHead(orgUuid);
    if (head < position) throw new BadRequestError({ code: 'FEED_CURSOR_INVALID' });
    if (head === position) return { events: [], position };
    // Entries up to the head had committed when it was read: read again, in case they committed after the first read.
    entries = await readFeedEntries(orgUuid, position, ENTRIES_PER_REQUEST);
  }
  const first = entries[0];
  if (!first || first.seq !== position + 1 || first.ttl <= Math.floor(Date.now() / 1000)) throw new GoneError();
  return selected(entries, position, selection, limit);
}

/** The entries' events that `selection` keeps, up to `limit` and the answer's bytes, and the position after the last entry taken or passed over. */
function selected(entries: readonly FeedEntry[], position: number, selection: TypeSelection, limit: number): { events: FeedEvent[]; position: number } {
  const events: FeedEvent[] = [];
  let bytes = 0;
  for (const entry of entries) {
    // Entries are gapless; a gap could only be one not visible yet, so nothing after it is taken.
    if (entry.seq !== position + 1) break;
    if (!selection || selection.has(entry.eventType)) {
      if (events.length > 0 && bytes + entry.event.length > ANSWER_BYTES) break;
      events.push(JSON.parse(entry.event) as FeedEvent);
      bytes += entry.event.length;
    }
    position = entry.seq;
    if (events.length >= limit) break;
  }
  return { events, position };
}
