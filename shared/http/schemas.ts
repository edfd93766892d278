import * as z from 'zod';

/** Zod pieces shared by request schemas. */
/** A UUID in any case, lower-cased: the store's keys and comparisons use lower case (RFC 9562: case-insensitive on input). */
export const uuidSchema = z.uuid({ message: 'Must be a UUID' }).transform((uuid) => uuid.toLowerCase());
