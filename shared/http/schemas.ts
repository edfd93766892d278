import * as z from 'zod';

/** Zod pieces shared by request schemas. */
export const uuidSchema = z.uuid({ message: 'Must be a UUID' });
