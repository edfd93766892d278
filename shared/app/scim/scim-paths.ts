import { BadRequestError, type ErrorCode } from '../../kernel/errors';
import { EXTENSIONS, extensionDefinitions, SCIMMY, USER_SCHEMA } from './scim-schema';

/**
 * The attribute paths a caller may write (a filter's, `attributes` and `excludedAttributes`, a PATCH
 * `path`), checked against the User schema and the access extension before any library walks them.
 *
 * scimmy walks a path's segments as property names of plain objects (its filter parser builds
 * `{ [segment]: … }` with assignment), so `__proto__.x eq "1"` wrote `x` onto `Object.prototype` for
 * the whole process, and its `attributes` projection and PATCH paths reach the same parser. Reported
 * upstream as: "Filter and PatchOp paths: a `__proto__`, `constructor` or `prototype` segment is
 * walked as an object key (prototype pollution); parse into objects without a prototype, or refuse
 * those segments". Until it is fixed there, nothing a caller writes reaches scimmy as a path unless it
 * names an attribute of the schema.
 */

/** Segments no attribute is called, refused before anything else looks at a path. */
const UNSAFE_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/** An attribute of the schema: its path as the schema spells it, and whether it holds several values. */
export interface KnownAttribute {
  /** `name.givenName`, or `<extension urn>:role` for an extension's attributes (`<extension urn>` for the extension whole). */
  path: string;
  /** The schema's type: `string`, `boolean`, `dateTime`, `reference`, `complex`, … */
  type: string;
  multiValued: boolean;
}

interface SchemaAttribute {
  name: string;
  type: string;
  config?: { multiValued?: boolean };
  subAttributes?: SchemaAttribute[];
}

function collect(attributes: SchemaAttribute[], prefix: string, into: Map<string, KnownAttribute>): void {
  for (const attribute of attributes) {
    // An extension is an attribute of the core definition, named by its URN: it is collected on its own.
    if (!/^[A-Za-z$][\w$-]*$/.test(attribute.name)) continue;
    const path = `${prefix}${attribute.name}`;
    into.set(path.toLowerCase(), { path, type: attribute.type, multiValued: attribute.config?.multiValued === true });
    if (attribute.subAttributes) collect(attribute.subAttributes, `${path}.`, into);
  }
}

let knownPaths: Map<string, KnownAttribute> | undefined;

/** Every attribute path of the User resource, by its lower-cased spelling (read from scimmy's schema on first use). */
function known(): Map<string, KnownAttribute> {
  if (knownPaths) return knownPaths;
  const into = new Map<string, KnownAttribute>();
  collect(SCIMMY.Schemas.User.definition.attributes as unknown as SchemaAttribute[], '', into);
  const definitions = extensionDefinitions();
  for (const extension of EXTENSIONS) {
    into.set(extension.toLowerCase(), { path: extension, type: 'complex', multiValued: false });
    collect(definitions[extension].attributes as unknown as SchemaAttribute[], `${extension}:`, into);
  }
  return (knownPaths = into);
}

/** Where a refused path was written: a filter (400 `invalidFilter`) or a PATCH path or attribute list (400 `invalidPath`). */
export type PathUse = 'filter' | 'path';

const codeOf = (use: PathUse): ErrorCode => (use === 'filter' ? 'INVALID_FILTER' : 'INVALID_PATH');

/** 400 when a path has a segment no attribute may be called (checked on the raw text, before it is split further). */
export function refuseUnsafeSegments(raw: string, use: PathUse): void {
  for (const segment of raw.split(/[.:[\]\s]/)) {
    if (UNSAFE_SEGMENTS.has(segment.toLowerCase())) {
      throw new BadRequestError({ code: codeOf(use), message: `"${segment}" is not an attribute of a User: name attributes of the User schema (GET /Schemas/${USER_SCHEMA})` });
    }
  }
}

/**
 * The schema's attribute at `raw` (`userName`, `name.givenName`, `urn:…:core:2.0:User:emails.value`,
 * `urn:…:agentplatform:2.0:User:role`, `urn:…:enterprise:2.0:User:manager`), matched without regard to case (RFC 7643 §2.1); relative to
 * `parent` inside a value filter (`emails[type eq "work"]`). 400 naming the path when there is none.
 */
export function resolveAttribute(raw: string, use: PathUse, parent?: KnownAttribute): KnownAttribute {
  refuseUnsafeSegments(raw, use);
  let path = raw;
  const lower = raw.toLowerCase();
  const extension = parent ? undefined : EXTENSIONS.find((urn) => lower.startsWith(`${urn.toLowerCase()}:`));
  if (!parent && lower.startsWith(`${USER_SCHEMA.toLowerCase()}:`)) path = raw.slice(USER_SCHEMA.length + 1);
  else if (extension) path = `${extension}:${raw.slice(extension.length + 1)}`;
  const full = parent ? `${parent.path}.${path}` : path;
  const attribute = known().get(full.toLowerCase());
  if (!attribute) {
    throw new BadRequestError({ code: codeOf(use), message: `"${raw}" is not an attribute of a User: name attributes of the User schema or of its extensions (GET /Schemas)` });
  }
  return attribute;
}
