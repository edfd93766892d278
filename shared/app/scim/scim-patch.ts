import { BadRequestError } from '../../kernel/errors';
import { checkEnterpriseOperation, isEnterprisePath } from './scim-enterprise';
import { readPatchPath, type FilterNode, type PatchPath } from './scim-filter-syntax';
import { resolveAttribute } from './scim-paths';
import { ACCESS_EXTENSION, PATCH_OP } from './scim-schema';
import type { ScimUser } from './scim-user.mapper';

/**
 * A PATCH message (RFC 7644 §3.5.2) made safe for scimmy to apply: every operation's `path`, and every
 * attribute a path-less operation's value names, read and checked against the schema first, then
 * handed on in one canonical spelling, so scimmy's own path parser only ever sees names of the schema
 * and a value filter of a few `and`-joined comparisons. An operation on the enterprise extension is
 * checked here and set aside: the extension changes nothing (`scim-enterprise.ts`).
 */

/** The most operations one PATCH applies (a directory sends a handful per change). */
export const MAX_PATCH_OPERATIONS = 100;

const ops = new Set(['add', 'replace', 'remove']);

export interface PatchOperation {
  op: string;
  path?: string;
  value?: unknown;
}

const invalidPatch = (message: string) => new BadRequestError({ code: 'INVALID_PATCH', message });

/** A value filter as scimmy reads it: comparisons joined by `and`, each value JSON without quotes or backslashes inside. */
function filterText(node: FilterNode, parent: string): string {
  if (node.kind === 'and') return node.items.map((item) => filterText(item, parent)).join(' and ');
  const relative = (path: string) => path.slice(parent.length + 1);
  if (node.kind === 'present') return `${relative(node.attribute.path)} pr`;
  if (node.kind === 'compare') {
    if (typeof node.value === 'string' && /["\\]/.test(node.value)) throw new BadRequestError({ code: 'INVALID_PATH', message: 'A value in a PATCH path\u2019s filter cannot hold a quote or a backslash' });
    return `${relative(node.attribute.path)} ${node.op} ${JSON.stringify(node.value)}`;
  }
  throw new BadRequestError({ code: 'INVALID_PATH', message: 'A PATCH path\u2019s value filter joins comparisons with and only (such as emails[type eq "work"])' });
}

/** The path in the schema's own spelling. */
export function canonicalPath({ attribute, filter, sub }: PatchPath): string {
  if (!filter) return attribute.path;
  const selected = `${attribute.path}[${filterText(filter, attribute.path)}]`;
  return sub ? `${selected}.${sub.path.slice(attribute.path.length + 1)}` : selected;
}

/** The multi-valued attributes a user's SCIM view holds (`scim-user.mapper.ts`); it holds no value of any other. */
const ANSWERED_MULTI_VALUED = new Set(['emails', `${ACCESS_EXTENSION}:permissions`]);

/** A value filter of `eq` comparisons joined by `and` as the value it selects (`type eq "work"`: `{ type: "work" }`); undefined for any other. */
function selectedValue(node: FilterNode, parent: string): Record<string, unknown> | undefined {
  if (node.kind === 'compare' && node.op === 'eq') return Object.fromEntries([[node.attribute.path.slice(parent.length + 1), node.value]]);
  if (node.kind !== 'and') return undefined;
  const parts = node.items.map((item) => selectedValue(item, parent));
  return parts.every((part) => part !== undefined) ? Object.assign({}, ...parts) : undefined;
}

/**
 * Entra ID's default mappings write a value of a multi-valued attribute through the filter that
 * selects it (`phoneNumbers[type eq "work"].value`, `addresses[type eq "work"].locality`), with `add`
 * or `replace` even when no such value exists, where RFC 7644 §3.5.2 answers noTarget. A user's SCIM
 * view holds no value of the attributes this API does not keep, so such an operation is read as the
 * add of the value the filter describes: scimmy checks it, and it changes nothing.
 */
function addedValue(op: string, { attribute, filter, sub }: PatchPath, value: unknown): PatchOperation | undefined {
  if (!filter || !sub || op.toLowerCase() === 'remove' || ANSWERED_MULTI_VALUED.has(attribute.path)) return undefined;
  const selected = selectedValue(filter, attribute.path);
  if (!selected) return undefined;
  return { op: 'add', path: attribute.path, value: [{ ...selected, ...Object.fromEntries([[sub.path.slice(attribute.path.length + 1), value]]) }] };
}

/**
 * Entra ID sends booleans as the strings "True" and "False" in PATCH values (its documented
 * compatibility behaviour): read them as booleans rather than refuse every deactivation it sends.
 */
const bool = (value: unknown) => (typeof value === 'string' && /^(true|false)$/i.test(value) ? value.toLowerCase() === 'true' : value);

function checkedOperation(operation: unknown, index: number): PatchOperation[] {
  if (typeof operation !== 'object' || operation === null || Array.isArray(operation)) throw invalidPatch(`Operation ${index + 1} must be an object with op, path and value`);
  const { op, path, value } = operation as Record<string, unknown>;
  if (typeof op !== 'string' || !ops.has(op.toLowerCase())) throw invalidPatch(`Operation ${index + 1} has op ${JSON.stringify(op)}: use add, replace or remove`);
  if (path !== undefined && typeof path !== 'string') throw invalidPatch(`Operation ${index + 1} has a path that is not a string`);
  if (path !== undefined) {
    const read = readPatchPath(path);
    const canonical = canonicalPath(read);
    if (isEnterprisePath(canonical)) {
      checkEnterpriseOperation(op, canonical, value);
      return [];
    }
    const added = addedValue(op, read, value);
    if (added) return [added];
    return [{ op, path: canonical, ...(value === undefined ? {} : { value: canonical === 'active' ? bool(value) : value }) }];
  }
  if (op.toLowerCase() === 'remove') throw new BadRequestError({ code: 'INVALID_PATH', message: `Operation ${index + 1} removes without a path: name the attribute to remove` });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidPatch(`Operation ${index + 1} has no path, so its value must be an object of attributes`);
  if (Object.keys(value).length === 0) throw invalidPatch(`Operation ${index + 1} has no path and its value names no attribute: name at least one`);
  // Keys in any spelling the schema allows (`name.givenName`, the core schema's URN prefix), handed on in its own.
  const named = Object.entries(value).map(([key, item]) => {
    const attribute = resolveAttribute(key, 'path');
    return { attribute, item: attribute.path === 'active' ? bool(item) : item };
  });
  const attributes = named.filter(({ attribute, item }) => {
    if (!isEnterprisePath(attribute.path)) return true;
    checkEnterpriseOperation(op, attribute.path, item);
    return false;
  });
  // RFC 7644 §3.5.2.3: a replace without a path replaces a multi-valued attribute's values whole;
  // scimmy would append them, so each such attribute gets a replace of its own, with its path.
  const whole = op.toLowerCase() === 'replace' ? attributes.filter(({ attribute }) => attribute.multiValued) : [];
  const merged = attributes.filter((entry) => !whole.includes(entry));
  return [
    ...(merged.length > 0 ? [{ op, value: Object.fromEntries(merged.map(({ attribute, item }) => [attribute.path, item])) }] : []),
    ...whole.map(({ attribute, item }) => ({ op, path: attribute.path, value: item })),
  ];
}

/**
 * The message's operations, checked and in canonical spelling, without those that change nothing (the
 * enterprise extension's: none left when the message only writes it); 400 `INVALID_PATCH`,
 * `INVALID_PATH` or `INVALID_VALUE` otherwise.
 */
export function checkedPatch(body: unknown): { schemas: string[]; Operations: PatchOperation[] } {
  if (typeof body !== 'object' || body === null) throw invalidPatch(`The body must be a PatchOp message (${PATCH_OP})`);
  const { schemas, Operations: operations } = body as { schemas?: unknown; Operations?: unknown };
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_OP)) throw invalidPatch(`The message's schemas must be ["${PATCH_OP}"]`);
  if (!Array.isArray(operations) || operations.length === 0) throw invalidPatch('The message must have Operations: a list of add, replace and remove operations');
  if (operations.length > MAX_PATCH_OPERATIONS) throw invalidPatch(`The message has more than ${MAX_PATCH_OPERATIONS} operations: send them in several requests`);
  return { schemas: [PATCH_OP], Operations: operations.flatMap(checkedOperation) };
}

const nameText = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * The user's one name after a PATCH, from the SCIM attributes that carry it: `name.formatted` when it
 * changed, else the parts joined when `givenName` or `familyName` changed, else `displayName` when it
 * changed; `current` when none did.
 */
export function patchedName(before: ScimUser, after: { name?: Record<string, unknown>; displayName?: unknown }, current: string): string {
  const formatted = nameText(after.name?.formatted);
  if (formatted && formatted !== before.name.formatted) return formatted;
  const [given, family] = [nameText(after.name?.givenName), nameText(after.name?.familyName)];
  if (given !== (before.name.givenName ?? '') || family !== (before.name.familyName ?? '')) {
    const joined = [given, family].filter(Boolean).join(' ');
    if (joined) return joined;
  }
  const displayName = nameText(after.displayName);
  if (displayName && displayName !== before.displayName) return displayName;
  return current;
}
