import { BadRequestError, type ErrorCode } from '../../kernel/errors';
import { MAX_URL_LENGTH } from '../../kernel/url-limits';
import { ENTERPRISE_EXTENSION } from './scim-schema';

/**
 * The enterprise User extension (RFC 7643 §4.3) as this service provider reads it. Microsoft Entra ID
 * sends it under its default attribute mappings (employeeId as `employeeNumber`, `department`,
 * `manager`), so it is read on create, replace and PATCH, and then changes nothing: a user here has
 * no field for any of it, as for the core attributes this API does not keep (`title`,
 * `phoneNumbers`, …). What is refused is a value that is not the extension's: an attribute it does
 * not have, a text that is not a string or is longer than `MAX_ENTERPRISE_TEXT`, a manager that is
 * not an object of strings.
 */

/** The longest text an attribute of the extension takes (characters); Entra ID's own fields are far shorter. */
export const MAX_ENTERPRISE_TEXT = 256;

/** The extension's attributes, each with the longest string it takes; `manager` is complex. */
const TEXTS: Record<string, number> = {
  employeeNumber: MAX_ENTERPRISE_TEXT,
  costCenter: MAX_ENTERPRISE_TEXT,
  organization: MAX_ENTERPRISE_TEXT,
  division: MAX_ENTERPRISE_TEXT,
  department: MAX_ENTERPRISE_TEXT,
};
const MANAGER: Record<string, number> = { value: MAX_ENTERPRISE_TEXT, $ref: MAX_URL_LENGTH, displayName: MAX_ENTERPRISE_TEXT };

/** The extension's attribute names, for a check against the schema scimmy describes. */
export const enterpriseAttributeNames = { attributes: [...Object.keys(TEXTS), 'manager'], manager: Object.keys(MANAGER) };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A name of `names` matched without regard to case (RFC 7643 §2.1), or undefined. */
const named = (names: Record<string, number>, key: string) => Object.keys(names).find((name) => name.toLowerCase() === key.toLowerCase());

class Check {
  constructor(private readonly code: ErrorCode) {}

  private refuse(message: string): never {
    throw new BadRequestError({ code: this.code, message });
  }

  /** A text of at most `max` characters; null is unassigned (RFC 7643 §2.5). */
  text(label: string, value: unknown, max: number): void {
    if (value === null) return;
    if (typeof value !== 'string') this.refuse(`${label} must be a string`);
    if (value.length > max) this.refuse(`${label} is longer than ${max} characters`);
  }

  /** The manager: an object of `value` (the manager's id), `$ref` and `displayName`, each a string. */
  manager(label: string, value: unknown): void {
    if (value === null) return;
    if (!isObject(value)) this.refuse(`${label} must be an object such as {"value": "<the manager's id>"}`);
    for (const [key, item] of Object.entries(value)) {
      const name = named(MANAGER, key);
      if (!name) this.refuse(`${label} has no attribute "${key}": give value, $ref or displayName`);
      this.text(`${label}.${name}`, item, MANAGER[name]!);
    }
  }

  /** One attribute of the extension (`employeeNumber`, `manager`, `manager.value`) and its value. */
  attribute(path: string, value: unknown): void {
    const label = `${ENTERPRISE_EXTENSION}:${path}`;
    const [top = '', sub, ...rest] = path.split('.');
    if (named(TEXTS, top) && sub === undefined) return this.text(label, value, TEXTS[named(TEXTS, top)!]!);
    if (top.toLowerCase() === 'manager' && sub === undefined) return this.manager(label, value);
    const part = sub === undefined ? undefined : named(MANAGER, sub);
    if (top.toLowerCase() === 'manager' && part && rest.length === 0) return this.text(label, value, MANAGER[part]!);
    this.refuse(`The enterprise extension has no attribute "${path}": give ${enterpriseAttributeNames.attributes.join(', ')} (GET /Schemas/${ENTERPRISE_EXTENSION})`);
  }

  /** The extension whole: an object of its attributes. */
  extension(value: unknown): void {
    if (value === null) return;
    if (!isObject(value)) this.refuse(`${ENTERPRISE_EXTENSION} must be an object of its attributes, such as {"employeeNumber": "701984"}`);
    for (const [key, item] of Object.entries(value)) this.attribute(key, item);
  }
}

/** Whether a path in the schema's spelling (`scim-paths.ts`) is the enterprise extension or one of its attributes. */
export const isEnterprisePath = (path: string) => path === ENTERPRISE_EXTENSION || path.startsWith(`${ENTERPRISE_EXTENSION}:`);

/**
 * 400 `INVALID_VALUE` unless what a User resource (POST, PUT) writes to the extension is the
 * extension's: under its URN (`{"urn:…:enterprise:2.0:User": {…}}`) or as one attribute by its full
 * name (`"urn:…:enterprise:2.0:User:department"`), either spelled in any case.
 */
export function checkEnterpriseResource(resource: Record<string, unknown>): void {
  const check = new Check('INVALID_VALUE');
  const urn = ENTERPRISE_EXTENSION.toLowerCase();
  for (const [key, value] of Object.entries(resource)) {
    const lower = key.toLowerCase();
    if (lower === urn) check.extension(value);
    else if (lower.startsWith(`${urn}:`)) check.attribute(key.slice(urn.length + 1), value);
  }
}

/**
 * Entra ID writes the manager by its id alone (`"path": "urn:…:enterprise:2.0:User:manager", "value":
 * "<id>"`), where RFC 7643 §4.3 has `{"value": "<id>"}`: read it as that, as Entra ID's boolean strings
 * are read as booleans.
 */
export const enterpriseValue = (path: string, value: unknown) => (path === `${ENTERPRISE_EXTENSION}:manager` && typeof value === 'string' ? { value } : value);

/**
 * 400 `INVALID_VALUE` unless a PATCH operation's value fits the extension's attribute at `path` (in
 * the schema's spelling); a `remove` carries no value to check.
 */
export function checkEnterpriseOperation(op: string, path: string, value: unknown): void {
  if (op.toLowerCase() === 'remove') return;
  const check = new Check('INVALID_VALUE');
  if (path === ENTERPRISE_EXTENSION) check.extension(value);
  else check.attribute(path.slice(ENTERPRISE_EXTENSION.length + 1), enterpriseValue(path, value));
}
