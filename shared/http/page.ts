import * as z from 'zod';

/** The Page of spec 2.8. `number` and `pageable.pageNumber` are 1-based, as the request's `page` is. */
export interface Page<T> {
  content: T[];
  pageable: {
    unpaged: boolean;
    paged: boolean;
    pageNumber: number;
    pageSize: number;
    offset: number;
    sort: SortState;
  };
  totalElements: number;
  totalPages: number;
  numberOfElements: number;
  size: number;
  number: number;
  first: boolean;
  last: boolean;
  empty: boolean;
  sort: SortState;
}

interface SortState {
  unsorted: boolean;
  sorted: boolean;
  empty: boolean;
}

/** Slices an already filtered and sorted list into page `page` (1-based) of `size`. */
export function toPage<T>(items: T[], page: number, size: number): Page<T> {
  const offset = (page - 1) * size;
  const content = items.slice(offset, offset + size);
  const totalPages = Math.ceil(items.length / size);
  const sort = { unsorted: false, sorted: true, empty: false };
  return {
    content,
    pageable: { unpaged: false, paged: true, pageNumber: page, pageSize: size, offset, sort },
    totalElements: items.length,
    totalPages,
    numberOfElements: content.length,
    size,
    number: page,
    first: page === 1,
    last: page >= totalPages,
    empty: content.length === 0,
    sort,
  };
}

/** A whole number from a query string, in a range, with a default when the parameter is absent. */
export const queryInt = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^-?\d+$/, { message: 'Must be a whole number' })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((value) => value ?? fallback);

/** `ASC` or `DESC` in any case, `DESC` when absent. */
export const queryDirection = z
  .string()
  .transform((value) => value.toUpperCase())
  .pipe(z.enum(['ASC', 'DESC'], { message: 'Must be ASC or DESC' }))
  .optional()
  .transform((value) => value ?? 'DESC');
