import { fold } from '../../kernel/text/matching';
import type { UserRecord, UserStatus } from './user.entities';

/**
 * The users index: what listings, searches and quicksearches read, in items that never grow with the
 * organization (docs/data-model.md#the-users-index). Written in the same transaction as the user item it derives from
 * (`user-index.repository.ts`); this file holds its rules: entries, sort keys, words and the search rule.
 *
 * - **Listing entries**: one item per user, status and sort order, under
 *   `ORG#<org>#USERS#<status>#<order>`, sorted by a key that orders as the listing does (name, e-mail
 *   and company folded, with numbers zero-padded so `user 9` comes before `user 10`; ties by creation
 *   time, then uuid). A page is a Query of one partition (two for `status=ALL`, merged).
 * - **Word-prefix postings**: one item per distinct first-3-characters of the user's words (name,
 *   e-mail and company split into words, folded), under `ORG#<org>#TERM#<prefix>`, carrying the
 *   listing fields: a search reads the postings of one prefix of its longest word and checks each
 *   candidate's name, e-mail and company against the whole search in memory (`matchesSearch`).
 * - **The count**: one item per organization with the number of ACTIVE and DELETED users and a
 *   version that every user write moves (quicksearch caches read it).
 */

export const listingOrders = ['createdAt', 'name', 'email', 'company'] as const;
export type ListingOrder = (typeof listingOrders)[number];

/** What a listing, search or quicksearch needs of a user (the page's users are read whole afterwards). */
export interface ListingEntry {
  uuid: string;
  name: string;
  email: string;
  company: string;
  createdAt: string;
  status: UserStatus;
  /** The user's last change and its provisioning client's id: what a SCIM filter reads beside the above (absent on entries written before they were kept). */
  updatedAt?: string;
  externalId?: string;
}

/** How long a name change stays readable: a quicksearch cache older than this reads every name again. */
export const NAME_CHANGE_TTL_SECONDS = 2 * 24 * 3600;

/**
 * One change a quicksearch cache applies: the user's name now, or that it is no longer active; and
 * what a deep-page cache applies: the user's listing entry now (absent on changes filed before it was kept).
 */
export interface NameChange {
  uuid: string;
  name: string;
  active: boolean;
  changedAt: string;
  entry?: ListingEntry;
}

/**
 * A user has postings for the prefixes of at most this many of its distinct words (its postings stay
 * within one transaction): a search whose longest word begins none of them does not find the user.
 */
export const MAX_INDEXED_WORDS = 24;
/** The length of the word prefix a posting is filed under. */
export const POSTING_PREFIX = 3;

export function entryOf(user: UserRecord): ListingEntry {
  return {
    uuid: user.uuid,
    name: user.name,
    email: user.email,
    company: user.company ?? '',
    createdAt: user.createdAt,
    status: user.status,
    updatedAt: user.updatedAt,
    ...(user.externalId ? { externalId: user.externalId } : {}),
  };
}

/** Folded, numbers zero-padded to 12 digits: byte order then follows the listing's natural order. */
const sortable = (text: string) => Array.from(fold(text).replace(/\d+/g, (digits) => digits.padStart(12, '0'))).slice(0, 200).join('');

/** The sort key of a user's entry in one order (at most a few hundred bytes; DynamoDB allows 1,024). */
export function sortKeyOf(order: ListingOrder, entry: ListingEntry): string {
  const tail = `${entry.createdAt}#${entry.uuid}`;
  switch (order) {
    case 'createdAt':
      return tail;
    case 'name':
      return `${sortable(entry.name)}\u0001${tail}`;
    case 'email':
      return `${sortable(entry.email)}\u0001${tail}`;
    case 'company':
      return `${sortable(entry.company)}\u0001${tail}`;
  }
}

/** The words of a text: folded, split on anything but letters and digits (`Ana.Lima@x` → ana, lima, x). */
export const wordsIn = (text: string): string[] => fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** The words a user's postings are filed under: those of its name, e-mail and company, distinct, at most MAX_INDEXED_WORDS. */
export function indexedWords(entry: ListingEntry): string[] {
  return [...new Set([...wordsIn(entry.name), ...wordsIn(entry.email), ...wordsIn(entry.company)])].slice(0, MAX_INDEXED_WORDS);
}

export const prefixOf = (word: string) => Array.from(word).slice(0, POSTING_PREFIX).join('');

/**
 * A search as typed: its space-separated search words, each as the words it joins with punctuation
 * (`ana lima@example` → [ana], [lima, example]). A search word of punctuation alone joins nothing
 * and is dropped.
 */
export type Search = string[][];

export const searchOf = (text: string): Search => text.split(/\s+/u).map(wordsIn).filter((joined) => joined.length > 0);

/**
 * Whether `joined` stands in `words` as typed: next to each other and in that order, each a whole
 * word but the last, which begins its word (`john.do` in john, doe).
 */
function standsIn(joined: string[], words: string[]): boolean {
  const last = joined.length - 1;
  for (let start = 0; start + last < words.length; start++) {
    if (joined.every((part, i) => (i < last ? words[start + i] === part : words[start + i]!.startsWith(part)))) return true;
  }
  return false;
}

/**
 * The search rule: every search word stands in the user's name, e-mail or company (docs/data-model.md#the-search-rule).
 * A plain word begins one of their words; words joined by punctuation (`john.doe`, `a_b`, a whole
 * e-mail) stand next to each other in that order in one of those fields, the last one as a prefix.
 * Punctuation only separates words, whichever it is: `john_doe` finds john.doe@x and John Doe alike,
 * and nothing is a wildcard. Both sides are folded (case and accents ignored).
 */
export function matchesSearch(entry: ListingEntry, search: Search): boolean {
  const fields = [wordsIn(entry.name), wordsIn(entry.email), wordsIn(entry.company)];
  return search.every((joined) => fields.some((words) => standsIn(joined, words)));
}
