/**
 * Deep pages from memory (docs/decisions/deep-pages-from-a-versioned-memo.md): the ordered listings a
 * container has read for a deep page, kept per organization and labelled with the count's `version`
 * read strongly consistent before them. Every user write moves that version in its own transaction
 * (`indexWrites`), and files the user's listing entry as a change when it moved: a listing is served
 * as it is while the version has not moved, and caught up with the changes filed since otherwise.
 */

/** One listed user: its uuid and its sort key in the listing's order (a page token's position). */
export interface Listed {
  uuid: string;
  key: string;
}

/**
 * A listing as read: its first entries in order (every entry up to the last one's key), whether they
 * are all of them, the count's version they are up to, how far into the listing changes they have
 * read (changes filed at or after `readFrom` are read again on the next catch-up) and when the
 * listing was read whole.
 */
export interface Remembered {
  version: number;
  entries: Listed[];
  complete: boolean;
  readFrom: string;
  loadedAt: number;
}

/**
 * The most entries kept by a container, all listings together: a search every user matches, at
 * 100,000 users, in three orders, beside the deep pages of the plain listings. An entry holds some
 * 240 bytes of heap (a uuid and a sort key of about 95 characters, measured in Node 24): at most about
 * 120 MB of the users function's 512 MB. The least recently used listing goes first.
 */
export const MEMO_MAX_ENTRIES = 500_000;

const listings = new Map<string, Remembered>();
let held = 0;

/** The listing `id` as remembered (at any version: the caller catches it up), when it holds at least `needed` entries or all of them. */
export function recall(id: string, needed: number): Remembered | undefined {
  const found = listings.get(id);
  if (!found || (!found.complete && found.entries.length < needed)) return undefined;
  // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
  listings.delete(id);
  listings.set(id, found);
  return found;
}

/** The number of entries of `listing` changed by a catch-up, for the container's bound. */
export function resized(id: string, by: number): void {
  if (listings.has(id)) held += by;
}

/** Keeps `listing` as `id`'s, in place of any earlier one, evicting the least recently used beyond `MEMO_MAX_ENTRIES`. */
export function remember(id: string, listing: Remembered): void {
  forget(id);
  if (listing.entries.length > MEMO_MAX_ENTRIES) return;
  listings.set(id, listing);
  held += listing.entries.length;
  for (const [oldest] of listings) {
    if (held <= MEMO_MAX_ENTRIES) break;
    forget(oldest);
  }
}

function forget(id: string): void {
  const found = listings.get(id);
  if (!found) return;
  held -= found.entries.length;
  listings.delete(id);
}
