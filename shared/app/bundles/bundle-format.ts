import type * as Yaml from 'yaml';
import { BadRequestError, PayloadTooLargeError } from '../../kernel/errors';
import { yamlBundleLimits } from './bundle.limits';
import { BUNDLE_FORMAT_VERSION, bundleMediaTypes } from './bundle.schemas';
import { groupDigits } from '../../kernel/text/numbers';
import { requireLazily } from '../../kernel/lazy';

/** A bundle as text: JSON by default, YAML on request, both read and written here. */

export { bundleMediaTypes };
export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';

const isYaml = (mediaType: string) => mediaType !== JSON_MEDIA_TYPE;

/**
 * `yaml`, loaded by the first YAML body or answer: JSON needs none of it, and it would be a third of the
 * agents function's code at every cold start. A package left out of the functions' bundles (its own
 * file in the function that loads it: docs/decisions/lighter-functions.md).
 */
const yamlLibrary = /* @__PURE__ */ requireLazily<typeof Yaml>('yaml', () => require('yaml')); // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose

const SCALAR_TOKENS = new Set(['scalar', 'single-quoted-scalar', 'double-quoted-scalar', 'block-scalar-header']);

const tooLarge = (what: string) =>
  new PayloadTooLargeError({ message: `The YAML bundle ${what}: send it as JSON (Content-Type: application/json, what GET …/bundle answers without Accept: application/yaml), which takes up to 6 MB`, code: 'BODY_TOO_LARGE' });
const malformed = (problem: string) => new BadRequestError({ code: 'MALFORMED_BUNDLE', message: `${problem}: send what GET …/bundle answers, with its Content-Type` });
const place = (lines: Yaml.LineCounter, offset: number) => {
  const { line, col } = lines.linePos(offset);
  return ` (line ${line}, column ${col})`;
};

/**
 * The CST tokens of `text`, lexed one lexical token at a time so that reading stops at the first bound
 * passed: too many scalars (413), collections nested too deep or too many aliases (400).
 */
function* boundedTokens(text: string, lines: Yaml.LineCounter): Generator<Yaml.CST.Token> {
  const { CST, Lexer, Parser } = yamlLibrary();
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0); // The first line starts at 0, as `Parser.parse` records it.
  let [scalars, aliases] = [0, 0];
  for (const lexeme of new Lexer().lex(text)) {
    const type = CST.tokenType(lexeme);
    if (type && SCALAR_TOKENS.has(type) && ++scalars > yamlBundleLimits.scalars) {
      throw tooLarge(`holds more than ${groupDigits(yamlBundleLimits.scalars)} keys and values, more than any bundle of ${groupDigits(yamlBundleLimits.bytes)} bytes`);
    }
    if (type === 'alias' && ++aliases > yamlBundleLimits.aliases) {
      throw malformed(`The YAML bundle has more than ${yamlBundleLimits.aliases} aliases${place(lines, parser.offset)}, which no bundle needs`);
    }
    yield* parser.next(lexeme);
    if (parser.stack.length > yamlBundleLimits.depth) {
      throw malformed(`The YAML bundle nests collections more than ${yamlBundleLimits.depth} deep${place(lines, parser.offset)}, which no bundle does`);
    }
  }
  yield* parser.end();
}

/** The first key of a map given twice, in one pass (`yaml`'s own check compares each key with every other). */
function duplicateKey(doc: Yaml.Document.Parsed): { key: string; offset: number } | undefined {
  const { isScalar, visit } = yamlLibrary();
  let found: { key: string; offset: number } | undefined;
  visit(doc, {
    Map: (_, map) => {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        if (!isScalar(key)) continue; // As `yaml` compares them: a collection key equals no other.
        if (seen.has(key.value)) {
          found = { key: String(key.value), offset: key.range?.[0] ?? 0 };
          return visit.BREAK;
        }
        seen.add(key.value);
      }
      return undefined;
    },
  });
  return found;
}

/** A YAML text as a value, within `yamlBundleLimits`; errors name the line and column. */
function readYaml(text: string): unknown {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > yamlBundleLimits.bytes) {
    throw tooLarge(`is ${groupDigits(bytes)} bytes; a YAML body takes at most ${groupDigits(yamlBundleLimits.bytes)} bytes (1 MiB)`);
  }
  const { Composer, LineCounter } = yamlLibrary();
  const lines = new LineCounter();
  // uniqueKeys: `yaml` compares each key of a map with every other (minutes for a 1 MB map): `duplicateKey` instead.
  const composer = new Composer({ uniqueKeys: false, merge: false });
  let doc: Yaml.Document.Parsed | undefined;
  for (const composed of composer.compose(boundedTokens(text, lines), true, text.length)) {
    if (doc) throw malformed(`The YAML bundle holds more than one document${place(lines, composed.range[0])}`);
    doc = composed;
  }
  const [error] = doc!.errors;
  if (error) throw malformed(`The bundle is not valid YAML${place(lines, error.pos[0])}`);
  const duplicate = duplicateKey(doc!);
  if (duplicate) throw malformed(`The YAML bundle gives the key ${JSON.stringify(duplicate.key)} twice${place(lines, duplicate.offset)}`);
  try {
    return doc!.toJS({ maxAliasCount: yamlBundleLimits.aliases });
  } catch {
    throw malformed(`The YAML bundle's aliases expand to more than ${yamlBundleLimits.aliases} nodes, which no bundle needs`);
  }
}

/**
 * The bundle a request body holds, before validation: refused with 400 when it is neither JSON nor
 * YAML, not an object, or of a format version this API does not read (so a bundle of a later format
 * is not reported field by field as if it were wrong); a YAML body past `yamlBundleLimits`' size is
 * refused with 413 before it is parsed.
 */
export function readBundle(text: string, mediaType: string): unknown {
  let value: unknown;
  if (isYaml(mediaType)) {
    value = readYaml(text);
  } else {
    try {
      value = JSON.parse(text);
    } catch {
      throw new BadRequestError({ code: 'MALFORMED_BUNDLE', message: 'The bundle is not valid JSON: send what GET …/bundle answers, with its Content-Type' });
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError({ code: 'MALFORMED_BUNDLE', message: 'The bundle must be an object with formatVersion, supervisors and agents, as GET …/bundle answers' });
  }
  const { formatVersion } = value as { formatVersion?: unknown };
  if (formatVersion !== BUNDLE_FORMAT_VERSION) {
    throw new BadRequestError({ code: 'BUNDLE_FORMAT_UNKNOWN', message: `The bundle's formatVersion is ${JSON.stringify(formatVersion) ?? 'missing'}; this API reads formatVersion ${BUNDLE_FORMAT_VERSION}: export the bundle again` });
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
  return yaml ? yamlLibrary().stringify(bundle, { lineWidth: 0 }) : `${JSON.stringify(bundle, null, 2)}\n`;
}
