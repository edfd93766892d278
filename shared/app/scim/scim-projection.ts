import { BadRequestError } from '../../kernel/errors';
import { resolveAttribute } from './scim-paths';
import { EXTENSIONS } from './scim-schema';

/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5): which attributes of a resource an answer
 * holds. Each name is one of the schema's (`scim-paths.ts`) before the resource is looked at;
 * `schemas` and `id` are always returned.
 */

/** The most names one list holds (the User schema has fewer attributes than this). */
export const MAX_SELECTED_ATTRIBUTES = 100;

/** `attributes` or `excludedAttributes`, comma-separated; `attributes` wins when both are given. */
export interface AttributeSelection {
  attributes?: string;
  excludedAttributes?: string;
}

const ALWAYS = new Set(['schemas', 'id']);

/** A path as the keys of the resource: `name.givenName` → name, givenName; `<extension>:role` → extension, role. */
function keysOf(path: string): string[] {
  const extension = EXTENSIONS.find((urn) => path === urn || path.startsWith(`${urn}:`));
  if (!extension) return path.split('.');
  return path === extension ? [extension] : [extension, ...path.slice(extension.length + 1).split('.')];
}

function namesOf(list: string | undefined): string[][] {
  const names = list?.split(',').map((name) => name.trim()).filter(Boolean) ?? [];
  if (names.length > MAX_SELECTED_ATTRIBUTES) throw new BadRequestError({ code: 'INVALID_PATH', message: `The list names more than ${MAX_SELECTED_ATTRIBUTES} attributes` });
  return names.map((name) => keysOf(resolveAttribute(name, 'path').path));
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What of `value` lies on `keys` (each value of a multi-valued attribute on the way), merged into `into`. */
function pick(value: unknown, keys: string[], into: unknown): unknown {
  if (keys.length === 0 || value === undefined) return value;
  if (Array.isArray(value)) {
    const kept = value.map((item, i) => pick(item, keys, Array.isArray(into) ? into[i] : undefined));
    return kept.some((item) => item !== undefined) ? kept.map((item) => item ?? {}) : undefined;
  }
  if (!isObject(value) || !Object.hasOwn(value, keys[0]!)) return into;
  const [key, ...rest] = keys as [string, ...string[]];
  const target: Json = isObject(into) ? into : {};
  const picked = pick(value[key], rest, target[key]);
  if (picked !== undefined) target[key] = picked;
  return target;
}

/** `value` without what lies on `keys`. */
function omit(value: unknown, keys: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => omit(item, keys));
  if (!isObject(value) || !Object.hasOwn(value, keys[0]!)) return value;
  const [key, ...rest] = keys as [string, ...string[]];
  const { [key]: inner, ...others } = value;
  return rest.length === 0 ? others : { ...others, [key]: omit(inner, rest) };
}

/** Checks the selection's names (400 `INVALID_PATH` naming one that is not an attribute) and returns the projection it asks for. */
export function projectionOf(selection: AttributeSelection): (resource: Json) => Json {
  const included = namesOf(selection.attributes);
  const excluded = included.length > 0 ? [] : namesOf(selection.excludedAttributes);
  if (included.length > 0) {
    return (resource) => {
      let out: Json = Object.fromEntries(Object.entries(resource).filter(([key]) => ALWAYS.has(key)));
      for (const keys of included) out = pick(resource, keys, out) as Json;
      return out;
    };
  }
  if (excluded.length > 0) {
    return (resource) => excluded.filter((keys) => !(keys.length === 1 && ALWAYS.has(keys[0]!))).reduce((out, keys) => omit(out, keys) as Json, resource);
  }
  return (resource) => resource;
}
