import { BadRequestError } from '../errors';
import type { ListingEntry } from '../users/user-index';
import { SCIMMY } from './scim-schema';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) over the users index. scimmy parses a filter into its disjunctive
 * form (a list of groups, any of which matches; each group's comparisons all hold) and matches plain
 * values against it. This module decides how a filter is served: a group naming one e-mail with `eq`
 * (`userName` or `emails.value`) is served by that e-mail's claim item; any other filter is evaluated
 * over the organization's listing entries, read whole, which only an organization of at most
 * `SCAN_MAX_USERS` users may do.
 */

/** The attributes a filter may name, as paths of scimmy's parsed form. */
const filterable = new Set(['id', 'userName', 'externalId', 'active', 'displayName', 'emails.value', 'emails.type', 'emails.primary', 'name.formatted', 'name.givenName', 'name.familyName', 'meta.lastModified', 'meta.created']);
/** Compared without regard to case (RFC 7643: `caseExact` false); `externalId` and `id` are exact. */
const caseless = new Set(['userName', 'displayName', 'emails.value', 'emails.type', 'name.formatted', 'name.givenName', 'name.familyName']);

/** The most users a filter that names no e-mail reads (the listing entries, some 200 bytes each). */
export const SCAN_MAX_USERS = 10_000;
/** The most e-mails a filter may look up one by one (`userName eq "a" or userName eq "b" …`). */
export const MAX_EMAIL_LOOKUPS = 50;

type Comparison = [string, ...unknown[]];
type Group = { [attribute: string]: Comparison | Group };

export interface ParsedFilter {
  groups: Group[];
  /** The e-mails whose claims serve the filter, or undefined when some group names none. */
  emails?: string[];
  /** Whether it compares `meta.lastModified` (entries written before they kept `updatedAt` need the user read). */
  readsLastModified: boolean;
}

function* comparisons(group: Group, prefix = ''): Generator<[string, Comparison]> {
  for (const [name, value] of Object.entries(group)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (Array.isArray(value)) yield [path, value];
    else yield* comparisons(value, path);
  }
}

const canonical = (path: string) => [...filterable].find((name) => name.toLowerCase() === path.toLowerCase());

function normalised(group: Group, prefix = ''): Group {
  const out: Group = {};
  for (const [name, value] of Object.entries(group)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (!Array.isArray(value)) {
      out[name] = normalised(value, path);
      continue;
    }
    const [op, ...operands] = value[0] === 'not' ? value.slice(1) : value;
    if (op !== 'pr' && op !== 'np' && operands.length !== 1) {
      throw new BadRequestError('INVALID_FILTER', `The filter compares "${path}" with ${String(op)} but gives no value: write ${path} ${String(op)} "value"`);
    }
    const known = canonical(path);
    if (!known) throw new BadRequestError('INVALID_FILTER', `The filter names "${path}", which cannot be filtered on: use ${[...filterable].join(', ')}`);
    out[known.split('.').pop()!] = caseless.has(known) ? (value.map((part, i) => (i > 0 && typeof part === 'string' ? part.toLowerCase() : part)) as Comparison) : value;
  }
  return out;
}

/** Parses a filter (400 `INVALID_FILTER` when it is not one, or names an attribute that cannot be filtered). */
export function parseFilter(expression: string): ParsedFilter {
  let parsed: Group[];
  try {
    parsed = [...new SCIMMY.Types.Filter(expression)] as Group[];
  } catch (error) {
    throw new BadRequestError('INVALID_FILTER', `The filter is not valid: ${(error as Error).message}`, { cause: error });
  }
  const groups = parsed.map((group) => normalised(group));
  const emailOf = (group: Group) => {
    for (const [path, comparison] of comparisons(group)) {
      const [op, value] = comparison;
      if ((path.toLowerCase() === 'username' || path.toLowerCase() === 'emails.value') && op === 'eq' && typeof value === 'string') return value;
    }
    return undefined;
  };
  const emails = groups.map(emailOf);
  const served = emails.every((email) => email !== undefined) && emails.length <= MAX_EMAIL_LOOKUPS;
  const readsLastModified = groups.some((group) => [...comparisons(group)].some(([path]) => path.toLowerCase() === 'meta.lastmodified'));
  return { groups, ...(served ? { emails: [...new Set(emails as string[])] } : {}), readsLastModified };
}

/** What a filter compares of a user, case-folded where SCIM compares without case. */
export interface Filterable {
  id: string;
  userName: string;
  externalId?: string;
  active: boolean;
  displayName: string;
  emails: { value: string; type: string; primary: boolean }[];
  name: { formatted: string; givenName?: string; familyName?: string };
  meta: { created: string; lastModified: string };
}

export function filterableOf(entry: ListingEntry & { updatedAt: string }): Filterable {
  const name = entry.name.toLowerCase();
  const [givenName, ...rest] = name.trim().split(/\s+/u);
  const email = entry.email.toLowerCase();
  return {
    id: entry.uuid,
    userName: email,
    ...(entry.externalId ? { externalId: entry.externalId } : {}),
    active: entry.status === 'ACTIVE',
    displayName: name,
    emails: [{ value: email, type: 'work', primary: true }],
    name: { formatted: name, ...(givenName ? { givenName } : {}), ...(rest.length > 0 ? { familyName: rest.join(' ') } : {}) },
    meta: { created: entry.createdAt, lastModified: entry.updatedAt },
  };
}

/** The values matching the filter, in their order. */
export function matching<T extends Filterable>(filter: ParsedFilter, values: T[]): T[] {
  const matched = new Set(new SCIMMY.Types.Filter(filter.groups).match(values));
  return values.filter((value) => matched.has(value));
}
