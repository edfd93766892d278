import * as z from 'zod/mini';
import { lazy } from '../lazy';
import './zod-messages';

/** Zod pieces shared by the request schemas of every area. */

/**
 * Whether DynamoDB can store a number as the document client sends it (`String(n)`): 0, or at most 38
 * significant digits with a magnitude from 1e-130 to 9.9999999999999999999999999999999999999e125
 * (beyond them DynamoDB refuses the write with a ValidationException: "Number underflow", "Number
 * overflow", "precision up to 38 digits"). The document client, without `allowImpreciseNumbers`,
 * also refuses integers past ±`Number.MAX_SAFE_INTEGER` before sending, which bounds stored numbers
 * further.
 */
export function isStorableNumber(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (value === 0) return true;
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return false;
  // `String(n)` is what is sent: digits, an optional point, an optional exponent (`5e-324`, `1.5e-7`).
  const [mantissa = '', exponent = '0'] = String(Math.abs(value)).split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  const digits = `${whole}${fraction}`;
  const leadingZeros = digits.length - digits.replace(/^0+/, '').length;
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  // The power of ten of the first significant digit: 1.5e-7 → -7, 0.0012 → -3, 123 → 2.
  const magnitude = Number(exponent) + whole.length - 1 - leadingZeros;
  return significant.length <= 38 && magnitude >= -130 && magnitude <= 125;
}

/**
 * A number schema whose values the store can keep: every request schema whose numbers reach DynamoDB
 * wraps them in this, so a value such as `5e-324` is a 422 naming the field instead of a write DynamoDB
 * refuses. The check runs once the schema's own (type, `z.int()`, `z.gte()`, `z.lte()`) pass, so a field
 * carries one message: its range when it is out of range, this one otherwise.
 */
export const storable = <T extends z.ZodMiniNumber>(schema: T): T =>
  schema.check(
    z.refine(isStorableNumber, {
      message: 'Must be 0 or have a magnitude from 1e-130 to 9007199254740991 with at most 38 significant digits',
      when: (payload) => payload.issues.length === 0,
    }),
  );

/** A whole number from a query string, in a range, with a default when the parameter is absent. */
export const queryInt = (min: number, max: number, fallback: number) =>
  z.pipe(
    z.optional(
      z.pipe(
        z.pipe(z.string().check(z.regex(/^-?\d+$/, { message: 'Must be a whole number' })), z.transform(Number)),
        z.number().check(z.int(), z.gte(min), z.lte(max)),
      ),
    ),
    z.transform((value) => value ?? fallback),
  );

/**
 * The schemas every area's request schemas share. Made on first call (when a route's chain or the API
 * description is built), never as a function loads.
 */
export const fieldSchemas = lazy(() => {
  /** A UUID in any case, lower-cased: the store's keys and comparisons use lower case (RFC 9562: case-insensitive on input). */
  const uuidSchema = z.pipe(
    z.uuid({ message: 'Must be a UUID' }),
    z.transform((uuid) => uuid.toLowerCase()),
  );

  /**
   * `pageToken`: the `nextPageToken` of the page before, opaque (docs/api/README.md#cursor-paging); the
   * page after it, at the same cost at any depth.
   */
  const queryPageToken = z
    .optional(z.string().check(z.minLength(1, { message: 'Must not be empty' }), z.maxLength(2000, { message: 'Must be at most 2,000 characters' })))
    .check(z.meta({ description: "The previous page's `nextPageToken`: the page after it (not with the page number)" }));

  /** `ASC` or `DESC` in any case, `DESC` when absent. */
  const queryDirection = z.pipe(
    z.optional(
      z.pipe(
        z.pipe(
          z.string(),
          z.transform((value) => value.toUpperCase()),
        ),
        z.enum(['ASC', 'DESC'], { message: 'Must be ASC or DESC' }),
      ),
    ),
    z.transform((value) => value ?? 'DESC'),
  );

  return { uuidSchema, queryPageToken, queryDirection };
});
