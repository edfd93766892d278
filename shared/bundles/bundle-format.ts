import { parse as parseYaml, stringify as stringifyYaml, YAMLParseError } from 'yaml';
import { BadRequestError } from '../errors';
import { BUNDLE_FORMAT_VERSION, bundleMediaTypes } from './bundle.schemas';

/** A bundle as text: JSON by default, YAML on request, both read and written here. */

export { bundleMediaTypes };
export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';

const isYaml = (mediaType: string) => mediaType !== JSON_MEDIA_TYPE;

/**
 * The bundle a request body holds, before validation: refused with 400 when it is neither JSON nor
 * YAML, not an object, or of a format version this API does not read (so a bundle of a later format
 * is not reported field by field as if it were wrong).
 */
export function readBundle(text: string, mediaType: string): unknown {
  let value: unknown;
  try {
    // No aliases beyond a handful: a small YAML text must not expand into a huge value.
    value = isYaml(mediaType) ? parseYaml(text, { maxAliasCount: 100, prettyErrors: false }) : JSON.parse(text);
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line}, column ${error.linePos[0].col})` : '';
    throw new BadRequestError(
      'MALFORMED_BUNDLE',
      `The bundle is not valid ${isYaml(mediaType) ? 'YAML' : 'JSON'}${where}: send what GET …/bundle answers, with its Content-Type`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError('MALFORMED_BUNDLE', 'The bundle must be an object with formatVersion, supervisors and agents, as GET …/bundle answers');
  }
  const { formatVersion } = value as { formatVersion?: unknown };
  if (formatVersion !== BUNDLE_FORMAT_VERSION) {
    throw new BadRequestError(
      'BUNDLE_FORMAT_UNKNOWN',
      `The bundle's formatVersion is ${JSON.stringify(formatVersion) ?? 'missing'}; this API reads formatVersion ${BUNDLE_FORMAT_VERSION}: export the bundle again`,
    );
  }
  return value;
}

/** Whether an `Accept` header asks for YAML rather than JSON (YAML only when it names YAML before JSON or alone). */
export function wantsYaml(accept: string | undefined): boolean {
  const types = (accept ?? '').split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const yaml = types.findIndex((type) => type !== JSON_MEDIA_TYPE && (bundleMediaTypes as readonly string[]).includes(type));
  const json = types.indexOf(JSON_MEDIA_TYPE);
  return yaml >= 0 && (json < 0 || yaml < json);
}

/** The bundle as text: key order as built, two-space indents and a final newline, so one configuration is one text. */
export function writeBundle(bundle: unknown, yaml: boolean): string {
  return yaml ? stringifyYaml(bundle, { lineWidth: 0 }) : `${JSON.stringify(bundle, null, 2)}\n`;
}
