/**
 * The Page (docs/api/README.md#pages). `number` and `pageable.pageNumber` echo the request's `page`: 1-based in the
 * agent listings, 0-based in the user listing (docs/api/README.md#pages).
 */
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

/** Slices an already filtered and sorted list into page `page` of `size`, pages counted from `firstPage`. */
export function toPage<T>(items: T[], page: number, size: number, firstPage: 0 | 1 = 1): Page<T> {
  return pageOf(items.slice((page - firstPage) * size, (page - firstPage + 1) * size), items.length, page, size, firstPage);
}

/** The page `page` whose `content` is already sliced (and perhaps already loaded) out of `total` items. */
export function pageOf<T>(content: T[], total: number, page: number, size: number, firstPage: 0 | 1 = 1): Page<T> {
  const offset = (page - firstPage) * size;
  const totalPages = Math.ceil(total / size);
  const sort = { unsorted: false, sorted: true, empty: false };
  return {
    content,
    pageable: { unpaged: false, paged: true, pageNumber: page, pageSize: size, offset, sort },
    totalElements: total,
    totalPages,
    numberOfElements: content.length,
    size,
    number: page,
    first: page === firstPage,
    last: page - firstPage >= totalPages - 1,
    empty: content.length === 0,
    sort,
  };
}
