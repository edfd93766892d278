import { BadRequestError } from '../../kernel/errors';
import type { ListingEntry } from '../../domain/users/user-index';
import { readFilter, type CompareValue, type FilterNode } from './scim-filter-syntax';
import type { KnownAttribute } from './scim-paths';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) over the users index. A filter is read into a tree
 * (`scim-filter-syntax.ts`) and decides how it is served: a filter whose every branch names one
 * e-mail with `eq` (`userName` or `emails.value`) is served by those e-mails' claim items; any other
 * is evaluated over the organization's listing entries, read whole, which only an organization of at
 * most `SCAN_MAX_USERS` users may do.
 */

/** The attributes a filter may name: what a listing entry holds. */
const filterable = new Set(['id', 'userName', 'externalId', 'active', 'displayName', 'emails', 'emails.value', 'emails.type', 'emails.primary', 'name', 'name.formatted', 'name.givenName', 'name.familyName', 'meta', 'meta.lastModified', 'meta.created']);
/** Compared without regard to case (RFC 7643: `caseExact` false); `externalId` and `id` are exact. */
const caseless = new Set(['userName', 'displayName', 'emails.value', 'emails.type', 'name.formatted', 'name.givenName', 'name.familyName']);

/** The most users a filter that names no e-mail reads (the listing entries, some 200 bytes each). */
export const SCAN_MAX_USERS = 10_000;
/** The most e-mails a filter may look up one by one (`userName eq "a" or userName eq "b" …`). */
export const MAX_EMAIL_LOOKUPS = 50;

export interface ParsedFilter {
  tree: FilterNode;
  /** The e-mails whose claims serve the filter, or undefined when some branch names none. */
  emails?: string[];
  /** Whether it compares `meta.lastModified` (entries written before they kept `updatedAt` need the user read). */
  readsLastModified: boolean;
}

function* attributesOf(node: FilterNode): Generator<KnownAttribute> {
  if ('items' in node) {
    for (const item of node.items) yield* attributesOf(item);
    return;
  }
  if (node.kind === 'not') return yield* attributesOf(node.item);
  yield node.attribute;
  if (node.kind === 'values') yield* attributesOf(node.item);
}

/** The e-mails that serve `node`: each branch of an `or` names one, an `and` needs one of its terms to. */
function emailsServing(node: FilterNode): string[] | undefined {
  switch (node.kind) {
    case 'compare':
      return node.op === 'eq' && typeof node.value === 'string' && (node.attribute.path === 'userName' || node.attribute.path === 'emails.value') ? [node.value.toLowerCase()] : undefined;
    case 'values':
      return emailsServing(node.item);
    case 'and':
      return node.items.map(emailsServing).filter((emails) => emails !== undefined).sort((a, b) => a.length - b.length)[0];
    case 'or': {
      const branches = node.items.map(emailsServing);
      return branches.every((emails) => emails !== undefined) ? branches.flat() : undefined;
    }
    default:
      return undefined;
  }
}

/** Reads a filter (400 `INVALID_FILTER` when it is not one, is past a bound, or names an attribute that cannot be filtered). */
export function parseFilter(expression: string): ParsedFilter {
  const tree = readFilter(expression);
  const paths = [...attributesOf(tree)].map((attribute) => attribute.path);
  const unfilterable = paths.find((path) => !filterable.has(path));
  if (unfilterable) {
    throw new BadRequestError({ code: 'INVALID_FILTER', message: `The filter names "${unfilterable}", which cannot be filtered on: use ${[...filterable].filter((path) => !['emails', 'name', 'meta'].includes(path)).join(', ')}` });
  }
  const emails = emailsServing(tree);
  const served = emails !== undefined && new Set(emails).size <= MAX_EMAIL_LOOKUPS;
  return { tree, ...(served ? { emails: [...new Set(emails)] } : {}), readsLastModified: paths.includes('meta.lastModified') };
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

/** The values at a path below `target`, a multi-valued attribute's values each. */
function valuesAt(target: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(target) ? target : [target];
  if (Array.isArray(target)) return target.flatMap((item) => valuesAt(item, path));
  if (typeof target !== 'object' || target === null || !Object.hasOwn(target, path[0]!)) return [];
  return valuesAt((target as Record<string, unknown>)[path[0]!], path.slice(1));
}

function compares(actual: unknown, op: string, expected: CompareValue, attribute: KnownAttribute): boolean {
  let value = expected;
  if (typeof actual === 'boolean' && typeof value === 'string' && /^(true|false)$/i.test(value)) value = value.toLowerCase() === 'true';
  if (typeof value === 'string' && caseless.has(attribute.path)) value = value.toLowerCase();
  if (attribute.type === 'dateTime' && typeof actual === 'string' && typeof value === 'string') {
    const [a, b] = [Date.parse(actual), Date.parse(value)];
    if (op === 'eq' || op === 'ne') return (a === b) === (op === 'eq');
    return op === 'gt' ? a > b : op === 'ge' ? a >= b : op === 'lt' ? a < b : op === 'le' ? a <= b : false;
  }
  switch (op) {
    case 'eq':
      return actual === value;
    case 'ne':
      return actual !== value;
    case 'co':
      return typeof actual === 'string' && actual.includes(value as string);
    case 'sw':
      return typeof actual === 'string' && actual.startsWith(value as string);
    case 'ew':
      return typeof actual === 'string' && actual.endsWith(value as string);
    default:
      if (typeof actual !== typeof value) return false;
      return op === 'gt' ? (actual as string) > (value as string) : op === 'ge' ? (actual as string) >= (value as string) : op === 'lt' ? (actual as string) < (value as string) : (actual as string) <= (value as string);
  }
}

/** Whether `target` (a user, or one value of a multi-valued attribute below `scope`) satisfies `node`. */
function holds(node: FilterNode, target: unknown, scope = ''): boolean {
  const relative = (attribute: KnownAttribute) => (scope ? attribute.path.slice(scope.length + 1) : attribute.path).split('.');
  switch (node.kind) {
    case 'and':
      return node.items.every((item) => holds(item, target, scope));
    case 'or':
      return node.items.some((item) => holds(item, target, scope));
    case 'not':
      return !holds(node.item, target, scope);
    case 'values':
      return valuesAt(target, relative(node.attribute)).some((value) => holds(node.item, value, node.attribute.path));
    case 'present':
      return valuesAt(target, relative(node.attribute)).some((value) => value !== undefined && value !== null && value !== '');
    case 'compare': {
      const values = valuesAt(target, relative(node.attribute));
      // An absent attribute is unequal to anything, and nothing else.
      if (values.length === 0) return node.op === 'ne';
      return node.op === 'ne' ? values.every((value) => compares(value, 'ne', node.value, node.attribute)) : values.some((value) => compares(value, node.op, node.value, node.attribute));
    }
  }
}

/** The values matching the filter, in their order. */
export function matching<T extends Filterable>(filter: ParsedFilter, values: T[]): T[] {
  return values.filter((value) => holds(filter.tree, value));
}
