/**
 * Lambda's payload limits are on the JSON of an event or result; a read's event is a few kilobytes
 * against 6 MB, so the local gateway builds the JSON to measure it only when a bound without it does
 * not settle the question.
 */

/** Deeper than this, the bound gives up (and the JSON is built, which names a cycle as it always did). */
const MAX_DEPTH = 64;
/** The longest JSON of a number (`-1.2345678901234567e-308`). */
const NUMBER_BYTES = 24;

const plainPrototypes = new Set<unknown>([Object.prototype, null]);

/**
 * At least the UTF-8 byte length of `JSON.stringify(value)`, without building it: a string of n UTF-16
 * units is at most 6n + 2 bytes of JSON (`\u0000` for each unit). Infinity past `limit`, and wherever
 * JSON may read the value otherwise (a `toJSON`, an instance of a class, a bigint, a deep or cyclic value).
 */
export function jsonBytesAtMost(value: unknown, limit = Infinity, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return 6 * value.length + 2;
    case 'number':
      return NUMBER_BYTES;
    case 'boolean':
    case 'undefined':
    case 'function':
    case 'symbol':
      // `false`, or `null` in an array; a key's whole entry is counted by its object.
      return 5;
    case 'object':
      break;
    default:
      return Infinity;
  }
  if (value === null) return 4;
  if (depth >= MAX_DEPTH) return Infinity;
  let bytes = 2;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return Infinity;
    for (const item of value as unknown[]) {
      bytes += jsonBytesAtMost(item, limit, depth + 1) + 1;
      if (bytes > limit) return Infinity;
    }
    return bytes;
  }
  if (!plainPrototypes.has(Object.getPrototypeOf(value)) || 'toJSON' in value) return Infinity;
  for (const [key, item] of Object.entries(value)) {
    bytes += 6 * key.length + 2 + 1 + jsonBytesAtMost(item, limit, depth + 1) + 1;
    if (bytes > limit) return Infinity;
  }
  return bytes;
}

/** The UTF-8 byte length of `value`'s JSON when it is over `limit`, else undefined (the JSON built only when the bound passes the limit). */
export function jsonBytesOver(value: unknown, limit: number): number | undefined {
  if (jsonBytesAtMost(value, limit) <= limit) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(value));
  return bytes > limit ? bytes : undefined;
}
