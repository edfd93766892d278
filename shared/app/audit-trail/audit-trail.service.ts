import type { OrgScope } from '../../domain/users/org-scope';
import type { AuditEvent } from '../../domain/audit/audit-event';
import { firstIndexNotBefore } from '../../kernel/sorted';
import { findAuditEvents, readAuditEvents, readAuditKeys, type AuditFilter, type AuditKey, type AuditPosition } from '../../domain/audit/audit-trail.repository';

export type { AuditPosition };

/**
 * The organization's audit events, newest first: page `page` (0-based) of `linesPerPage`, or the
 * page starting at a page token's position (`start`, the token's page number and position), how many
 * `filter` selects in all, and where the next page starts. The handler authorizes the scope: ADMIN's only.
 *
 * A numbered page of the organization's events (without `resourceUuid`) is a slice of the listing this
 * container keeps, caught up with the events filed since it last read the same listing: see
 * `memoAuditPage`; its total is that listing's length, so no page reads every key again. A page token's
 * page, or one resource's events, counts the total from the keys of the time range (after a position
 * only those that follow it: the events before were counted by the pages before).
 */
export async function listAuditEvents(
  scope: OrgScope,
  query: AuditFilter & { page: number; linesPerPage: number; pageToken?: string },
  start?: { number: number; after: AuditPosition },
): Promise<{ events: AuditEvent[]; total: number; number: number; next?: AuditPosition }> {
  const { page, linesPerPage, pageToken: _, ...filter } = query;
  const number = start?.number ?? page;
  const offset = start ? 0 : page * linesPerPage;
  if (!start && filter.resourceUuid === undefined) return { ...(await memoAuditPage(scope.orgUuid, filter, offset, linesPerPage)), number };
  const found = await findAuditEvents(scope.orgUuid, filter, offset, linesPerPage, start ? { after: start.after } : {});
  return { events: found.events, total: found.remaining + (start ? number * linesPerPage : 0), number, ...(found.next ? { next: found.next } : {}) };
}

/**
 * An event is filed under the time its change was made (a user's under its `updatedAt`, taken before
 * the identity provider's calls), and its transaction commits within this much of it: a catch-up reads
 * again the events of this last stretch.
 */
export const AUDIT_CLOCK_MARGIN_MS = 60_000;
/** A listing read whole this long ago is read whole again: an event committed later than the margin would be missed until then. */
export const AUDIT_RELOAD_MS = 10 * 60_000;
/** The most event keys a container keeps, all listings together (about 200 bytes each); the least recently used listing goes first. */
export const AUDIT_MEMO_MAX_KEYS = 200_000;

interface AuditListing {
  keys: AuditKey[];
  ids: Set<string>;
  /** When the last read of it began: events filed from `readAt − AUDIT_CLOCK_MARGIN_MS` on are read again. */
  readAt: number;
  /** When it was read whole. */
  loadedAt: number;
  /** The earliest expiry (epoch seconds) of its keys: from then on, the expired keys are dropped. */
  expires: number;
}
const auditListings = new Map<string, AuditListing>();
const idOf = (key: AuditPosition) => `${key.PK}\u0000${key.SK}`;

/**
 * A numbered page of the organization's events (docs/decisions/deep-pages-from-a-versioned-memo.md): the keys this container read for the same filter, caught
 * up with those filed since its last read began (less the margin: one strongly consistent Query of a
 * few keys), or, on its first read and every `AUDIT_RELOAD_MS`, every key the filter selects (strongly consistent); expired ones
 * left out as a fresh read leaves them; then the page's events. Events are only added (and expire),
 * so the keys caught up are the keys a fresh read finds.
 */
async function memoAuditPage(orgUuid: string, filter: AuditFilter, offset: number, limit: number) {
  const id = JSON.stringify([orgUuid, filter.actor, filter.resourceType, filter.from, filter.to]);
  const startedAt = Date.now();
  let listing = auditListings.get(id);
  auditListings.delete(id);
  if (listing && startedAt - listing.loadedAt < AUDIT_RELOAD_MS) {
    const since = new Date(listing.readAt - AUDIT_CLOCK_MARGIN_MS).toISOString();
    const added = (await readAuditKeys(orgUuid, filter, { since, consistent: true, now: startedAt })).filter((key) => !listing!.ids.has(idOf(key)));
    // A few keys each taken in place (newest first), rather than the whole listing sorted again.
    for (const key of added) {
      listing.keys.splice(newerThan(listing.keys, key.SK), 0, key);
      listing.ids.add(idOf(key));
      listing.expires = Math.min(listing.expires, key.ttl);
    }
    listing.readAt = startedAt;
  } else {
    const keys = await readAuditKeys(orgUuid, filter, { consistent: true, now: startedAt });
    listing = { keys, ids: new Set(keys.map(idOf)), readAt: startedAt, loadedAt: startedAt, expires: earliest(keys) };
  }
  keep(id, listing);
  const now = Math.floor(Date.now() / 1000);
  if (listing.expires <= now) {
    // Left out as a fresh read leaves them out.
    for (const key of listing.keys) if (key.ttl <= now) listing.ids.delete(idOf(key));
    listing.keys = listing.keys.filter((key) => key.ttl > now);
    listing.expires = earliest(listing.keys);
  }
  const pageKeys = listing.keys.slice(offset, offset + limit).map(({ ttl: _, ...key }) => key);
  return { events: await readAuditEvents(pageKeys), total: listing.keys.length, ...(listing.keys.length > offset + limit ? { next: pageKeys.at(-1)! } : {}) };
}

const earliest = (keys: AuditKey[]) => keys.reduce((least, key) => Math.min(least, key.ttl), Infinity);

/** How many of `keys` (newest first, by sort key) are newer than the sort key `sk`. */
const newerThan = (keys: AuditKey[], sk: string) => firstIndexNotBefore(keys.length, (index) => keys[index]!.SK > sk);

function keep(id: string, listing: AuditListing): void {
  auditListings.set(id, listing);
  let held = 0;
  for (const kept of auditListings.values()) held += kept.keys.length;
  for (const [oldest, kept] of auditListings) {
    if (held <= AUDIT_MEMO_MAX_KEYS) break;
    held -= kept.keys.length;
    auditListings.delete(oldest);
  }
}
