import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { namesWhere, type StoredOf } from '../../kernel/schemas/declared-fields';
import { fieldSchemas } from '../../kernel/schemas/fields';

/**
 * The fields of a configuration entry, declared once (docs/architecture.md#fields-declared-once): what
 * a save body takes (`save`, under `names.save` where the body names it otherwise), what reads show
 * (`response`; `nullable`: `null` when absent), what a save of an existing entry replaces
 * (`replacedOnSave`; the others name the entry). The save schema, the response schema, the record
 * type, the mapper, the store's update and the audit event's patch are derived from it.
 */

/** A key: trimmed, 1 to 200 characters (also what `userHasConf?key=` takes). */
export const keySchema = lazy(() =>
  z.string().check(z.trim(), z.minLength(1, { message: 'Must not be blank' }), z.maxLength(200, { message: 'Must be at most 200 characters' })),
);

export const configurationFields = {
  /** From a per-user counter: never changes for an entry, never reused. */
  id: { response: () => z.int() },
  key: { save: keySchema, response: () => z.string() },
  value: { save: () => z.string().check(z.maxLength(10_000, { message: 'Must be at most 10000 characters' })), response: () => z.string(), replacedOnSave: true },
  /** The bot of a bot-specific entry; absent (`null` in reads) on a general one. */
  botUuid: { save: () => z.optional(fieldSchemas().uuidSchema), names: { save: 'botUUID' as const }, response: () => z.nullable(z.uuid()), nullable: true },
};

/** A user's configuration entry as stored: the declared fields and its owner. */
export type ConfigurationRecord = StoredOf<typeof configurationFields> & { userUuid: string };

/** What a save of an existing entry changes; the other fields name the entry. */
export const replacedOnSave = namesWhere(configurationFields, (field) => 'replacedOnSave' in field) as 'value'[];
