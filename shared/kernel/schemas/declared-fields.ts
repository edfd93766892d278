import type * as z from 'zod/mini';

/**
 * The machinery of a resource's field declaration (`<resource>.fields.ts`): each field is one entry
 * whose facets are what it is in each place (a request body, a read, a bundle, the record). Schemas
 * come from facets that make them on call (`() => schema`), so a declaration costs nothing as it loads;
 * the shapes below keep each facet's zod type, so `z.infer` of a derived schema types its field.
 */

/**
 * A facet that makes a schema: with no argument, or with the kit its declaration's schema modules pass
 * (zod and shared pieces), for a declaration that must not import them itself (`user.fields.ts`).
 */
export type SchemaFacet = (kit: never) => z.ZodMiniType;

/** The names of the declaration's fields that have the facet `F`. */
export type NamesWith<D, F extends PropertyKey> = { [K in keyof D]: D[K] extends Record<F, SchemaFacet> ? K : never }[keyof D];

/** The name a field goes by in facet `F`: its declared name, or the one its `names` give for `F` (a body's `botUUID` for `botUuid`). */
type NameIn<K, E, F extends PropertyKey> = E extends { names: Record<F, infer N extends string> } ? N : K;

/** An object schema's shape: each field of the declaration with facet `F`, typed as that facet's schema. */
export type ShapeOf<D, F extends PropertyKey> = {
  -readonly [K in NamesWith<D, F> as NameIn<K, D[K], F>]: D[K] extends Record<F, (kit: never) => infer S> ? S : never;
};

/** The name of a field in facet `facet`. */
const nameIn = (name: string, entry: object, facet: string): string => (entry as { names?: Record<string, string> }).names?.[facet] ?? name;

/**
 * The shape of facet `facet`, its fields in declaration order (or in the order `order` ranks them,
 * declaration order within a rank), each facet called with `kit`.
 */
export function shapeOf<D extends Record<string, object>, F extends string>(
  declaration: D,
  facet: F,
  options: { order?: (entry: D[keyof D]) => number; kit?: unknown } = {},
): ShapeOf<D, F> {
  const order = options.order ?? (() => 0);
  const names = Object.keys(declaration).filter((name) => typeof (declaration[name] as Record<string, unknown>)[facet] === 'function');
  const ranked = names.map((name, index) => ({ name, index, rank: order(declaration[name] as D[keyof D]) }));
  ranked.sort((a, b) => a.rank - b.rank || a.index - b.index);
  const make = (name: string) => (declaration[name] as Record<F, (kit: unknown) => z.ZodMiniType>)[facet](options.kit);
  return Object.fromEntries(ranked.map(({ name }) => [nameIn(name, declaration[name] as object, facet), make(name)])) as ShapeOf<D, F>;
}

/**
 * A field as reads show it and records keep it (users, configuration entries): `response` its schema
 * in reads; stored under `stored` (by default its name; `false`: derived, not stored), or as `record`
 * says when it is in no read; `read` when a read shows it otherwise than as stored. An absent value
 * reads as `null` when the response schema is nullable, and is left out otherwise.
 */
export interface ReadField {
  response?: SchemaFacet;
  record?: SchemaFacet;
  stored?: string | false;
  nullable?: boolean;
  read?: (record: never) => unknown;
}

type StoredValue<E> = E extends { record: (kit: never) => infer S extends z.ZodMiniType }
  ? z.output<S>
  : E extends { response: (kit: never) => infer S extends z.ZodMiniType }
    ? z.output<S>
    : never;
type Stored<D> = { [K in keyof D]: D[K] extends { stored: false } ? never : D[K] extends { record: SchemaFacet } | { response: SchemaFacet } ? K : never }[keyof D];
type StoredName<K, E> = E extends { stored: infer N extends string } ? N : K;
type Absent<E> = null extends StoredValue<E> ? true : undefined extends StoredValue<E> ? true : false;

/** The record's fields a declaration gives: each stored field, optional where reads may show it absent (`null`, or left out). */
export type StoredOf<D> = {
  -readonly [K in Stored<D> as Absent<D[K]> extends true ? never : StoredName<K, D[K]>]: StoredValue<D[K]>;
} & {
  -readonly [K in Stored<D> as Absent<D[K]> extends true ? StoredName<K, D[K]> : never]?: NonNullable<StoredValue<D[K]>>;
};

/** A record as reads show it: each field with a `response`, in declaration order (see `ReadField`). */
export function readOf(declaration: Record<string, object>, record: object): Record<string, unknown> {
  const values = record as Record<string, unknown>;
  const read: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(declaration) as [string, ReadField][]) {
    if (!field.response) continue;
    const value = field.read ? field.read(record as never) : values[field.stored || name];
    if (value !== undefined) read[name] = value;
    else if (field.nullable) read[name] = null;
  }
  return read;
}

/** Each field of the declaration for which `pick` says so, by name. */
export const namesWhere = <D extends Record<string, object>>(declaration: D, pick: (entry: D[keyof D]) => boolean): (keyof D & string)[] =>
  Object.keys(declaration).filter((name) => pick(declaration[name] as D[keyof D]));

/** `source` without the listed keys. */
export function without<T extends object, K extends PropertyKey>(source: T, names: readonly K[]): Omit<T, K> {
  const kept: Record<PropertyKey, unknown> = { ...(source as Record<PropertyKey, unknown>) };
  for (const name of names) delete kept[name];
  return kept as Omit<T, K>;
}

/** The listed keys of `source` whose value is neither `undefined` nor `null` (an absent optional field). */
export function present<T extends object>(source: T, names: readonly PropertyKey[]): Record<string, unknown> {
  const values = source as Record<PropertyKey, unknown>;
  return Object.fromEntries(names.flatMap((name) => (values[name] === undefined || values[name] === null ? [] : [[name, values[name]]])));
}
