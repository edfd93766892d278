import type * as z from 'zod/mini';

/**
 * The machinery of a resource's field declaration (`<resource>.fields.ts`): each field is one entry
 * whose facets are what it is in each place (a request body, a read, a bundle, the record). Schemas
 * come from facets that make them on call (`() => schema`), so a declaration costs nothing as it loads;
 * the shapes below keep each facet's zod type, so `z.infer` of a derived schema types its field.
 */

/** A facet that makes a schema. */
export type SchemaFacet = () => z.ZodMiniType;

/** The names of the declaration's fields that have the facet `F`. */
export type NamesWith<D, F extends PropertyKey> = { [K in keyof D]: D[K] extends Record<F, SchemaFacet> ? K : never }[keyof D];

/** An object schema's shape: each field of the declaration with facet `F`, typed as that facet's schema. */
export type ShapeOf<D, F extends PropertyKey> = {
  -readonly [K in NamesWith<D, F>]: D[K] extends Record<F, () => infer S> ? S : never;
};

/**
 * The shape of facet `facet`, its fields in declaration order (or in the order `order` ranks them,
 * declaration order within a rank).
 */
export function shapeOf<D extends Record<string, object>, F extends string>(
  declaration: D,
  facet: F,
  order: (entry: D[keyof D]) => number = () => 0,
): ShapeOf<D, F> {
  const names = Object.keys(declaration).filter((name) => typeof (declaration[name] as Record<string, unknown>)[facet] === 'function');
  const ranked = names.map((name, index) => ({ name, index, rank: order(declaration[name] as D[keyof D]) }));
  ranked.sort((a, b) => a.rank - b.rank || a.index - b.index);
  return Object.fromEntries(ranked.map(({ name }) => [name, (declaration[name] as Record<F, SchemaFacet>)[facet]()])) as ShapeOf<D, F>;
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
