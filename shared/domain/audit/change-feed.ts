import { createHash } from 'node:crypto';
import { BadRequestError, ValidationError } from '../../kernel/errors';
import { changeEventTypes } from './event-types';

/**
 * The rules of an organization's change feed (docs/api/events.md#the-change-feed): how long entries
 * are kept, what a cursor holds and which types a `types` filter selects. Pure: no store, no clock.
 */

/** Entries are kept this long, so at least 30 days are always there (TTL removes them within days after). */
export const FEED_RETENTION_DAYS = 31;

/** What a consumer is promised: events of the last 30 days are always in the feed. */
export const FEED_PROMISED_DAYS = 30;

const CURSOR_VERSION = 'f1';

/** A short digest that ties a cursor's parts together, so a cursor mangled in transit or by hand reads as invalid rather than as another place. */
const checkOf = (orgUuid: string, seq: number) => createHash('sha256').update(`${CURSOR_VERSION}\n${orgUuid}\n${seq}`).digest('base64url').slice(0, 12);

/**
 * The cursor after the entry `seq` of `orgUuid`'s feed (0: before the first). Opaque to clients:
 * base64url of the version, the organization, the sequence number and their digest.
 */
export function encodeFeedCursor(orgUuid: string, seq: number): string {
  return Buffer.from(`${CURSOR_VERSION}.${orgUuid}.${seq}.${checkOf(orgUuid, seq)}`).toString('base64url');
}

const invalidCursor = (message?: string) => new BadRequestError({ code: 'FEED_CURSOR_INVALID', ...(message ? { message } : {}) });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The sequence number a cursor of `orgUuid`'s feed stands after. A cursor that is not one this feed
 * gave (malformed, altered) or that another organization's feed gave is a 400 `FEED_CURSOR_INVALID`.
 */
export function decodeFeedCursor(cursor: string, orgUuid: string): number {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalidCursor();
  const [version, org, seqText, check, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (version !== CURSOR_VERSION || rest.length > 0 || !org || !UUID.test(org) || !seqText || !/^(0|[1-9]\d{0,14})$/.test(seqText)) throw invalidCursor();
  const seq = Number(seqText);
  if (check !== checkOf(org, seq)) throw invalidCursor();
  if (org !== orgUuid) throw invalidCursor("The cursor (after) belongs to another organization's feed: use a next this organization's feed gave, or leave after out");
  return seq;
}

/** Which full event types a `types` filter selects; undefined for every type. */
export type TypeSelection = ReadonlySet<string> | undefined;

/**
 * The full types (`<prefix>.<type>`) that `patterns` select, under the stack's `prefix`: each a full
 * type, its alias without the prefix, or either ending in `*` (`com.agentplatform.user.*`, `user.*`,
 * `*`), which selects every type starting with what comes before it. A value that selects no known
 * type is a 422 naming it, with this stack's prefix.
 */
export function selectTypes(patterns: readonly string[], prefix: string): TypeSelection {
  if (patterns.length === 0) return undefined;
  const selected = new Set<string>();
  const refused: string[] = [];
  patterns.forEach((pattern, index) => {
    const short = pattern.startsWith(`${prefix}.`) ? pattern.slice(prefix.length + 1) : pattern;
    const wildcard = short.endsWith('*');
    const stem = wildcard ? short.slice(0, -1) : short;
    const matches = changeEventTypes.filter((type) => (wildcard ? type.startsWith(stem) : type === stem));
    if (matches.length === 0 || stem.includes('*')) refused.push(`types[${index}]`);
    else for (const type of matches) selected.add(`${prefix}.${type}`);
  });
  if (refused.length > 0) {
    throw new ValidationError({
      details: refused.map((fieldName) => ({
        fieldName,
        errorCode: 'FIELD_INVALID' as const,
        message: `Must be an event type (e.g. ${prefix}.user.created) or one ending in * (e.g. ${prefix}.user.*): see docs/api/events.md#event-types`,
      })),
    });
  }
  return selected.size === changeEventTypes.length ? undefined : selected;
}

/** The `types` query as sent: repeated (`types=a&types=b`, which the gateway joins with commas) or comma-separated. */
export const typePatternsOf = (types: string | undefined): string[] =>
  (types ?? '')
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type.length > 0);
