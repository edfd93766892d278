import * as z from 'zod/mini';
import { toPage } from '../../shared/edge/http/page';
import { fieldSchemas, queryInt } from '../../shared/kernel/schemas/fields';

const SORTED = { unsorted: false, sorted: true, empty: false };
const letters = (count: number) => Array.from({ length: count }, (_, i) => String.fromCharCode(97 + i));

describe('toPage', () => {
  test('an empty list is one empty first and last page with no pages in total', () => {
    expect(toPage([], 1, 5)).toEqual({
      content: [],
      pageable: { unpaged: false, paged: true, pageNumber: 1, pageSize: 5, offset: 0, sort: SORTED },
      totalElements: 0,
      totalPages: 0,
      numberOfElements: 0,
      size: 5,
      number: 1,
      first: true,
      last: true,
      empty: true,
      sort: SORTED,
    });
  });

  test('a middle page is neither first nor last and starts at the right offset', () => {
    const page = toPage(letters(12), 2, 5);

    expect(page).toMatchObject({
      content: ['f', 'g', 'h', 'i', 'j'],
      pageable: { pageNumber: 2, pageSize: 5, offset: 5 },
      totalElements: 12,
      totalPages: 3,
      numberOfElements: 5,
      number: 2,
      first: false,
      last: false,
      empty: false,
    });
  });

  test('the last page of a partial list holds the remainder', () => {
    expect(toPage(letters(12), 3, 5)).toMatchObject({ content: ['k', 'l'], numberOfElements: 2, size: 5, last: true, first: false });
  });

  test('when the list is an exact multiple of the size the last full page is last', () => {
    const page = toPage(letters(10), 2, 5);

    expect(page).toMatchObject({ content: ['f', 'g', 'h', 'i', 'j'], totalPages: 2, numberOfElements: 5, last: true, empty: false });
  });

  test('a page past the end is empty, last, and keeps the requested number and offset', () => {
    const page = toPage(letters(10), 4, 5);

    expect(page).toMatchObject({
      content: [],
      pageable: { pageNumber: 4, offset: 15 },
      totalElements: 10,
      totalPages: 2,
      numberOfElements: 0,
      number: 4,
      first: false,
      last: true,
      empty: true,
    });
  });

  test('a single page that holds everything is first and last', () => {
    expect(toPage(letters(3), 1, 100)).toMatchObject({ content: ['a', 'b', 'c'], totalPages: 1, first: true, last: true, size: 100 });
  });
});

describe('queryInt', () => {
  const page = queryInt(1, 100, 5);

  test('falls back to its default when the parameter is absent', () => {
    expect(page.parse(undefined)).toBe(5);
  });

  test.each([
    ['1', 1],
    ['100', 100],
    ['007', 7],
  ])('reads %j as %d', (input, expected) => {
    expect(page.parse(input)).toBe(expected);
  });

  test.each(['0', '-1', '101', 'x', '', '1.5', '1e2', ' 5', '5 ', '0x10', '99999999999999999999'])('refuses %j', (input) => {
    expect(page.safeParse(input).success).toBe(false);
  });

  test('says what is wrong with a non-number', () => {
    const result = page.safeParse('x');

    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Must be a whole number');
  });

  test('works inside an object schema, where a missing key takes the default', () => {
    const schema = z.object({ page: queryInt(1, 10, 1), size: queryInt(1, 10, 5) });

    expect(schema.parse({ size: '3' })).toEqual({ page: 1, size: 3 });
  });
});

describe('queryDirection', () => {
  const { queryDirection } = fieldSchemas();

  test('defaults to DESC', () => {
    expect(queryDirection.parse(undefined)).toBe('DESC');
  });

  test.each([
    ['ASC', 'ASC'],
    ['asc', 'ASC'],
    ['Asc', 'ASC'],
    ['DESC', 'DESC'],
    ['desc', 'DESC'],
    ['dEsC', 'DESC'],
  ])('reads %j as %s', (input, expected) => {
    expect(queryDirection.parse(input)).toBe(expected);
  });

  test.each(['', 'up', 'ascending', 'ASC,DESC', ' asc'])('refuses %j', (input) => {
    const result = queryDirection.safeParse(input);

    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Must be ASC or DESC');
  });
});
