import { BadRequestError } from '../../kernel/errors';
import { resolveAttribute, type KnownAttribute } from './scim-paths';

/**
 * SCIM filter expressions (RFC 7644 §3.4.2.2) read into a tree, in time linear in their length.
 *
 * A filter is read here rather than by scimmy: scimmy's tokenizer backtracks exponentially on a string
 * of backslashes (1.9 s at 38 characters) and its parser expands `and` of `or` groups into their
 * disjunctive form (0.97 s at 14 comparisons), so one request could hold a function for minutes. This
 * reader scans the text once (the pre-scan: length, comparisons and nesting checked before any tree
 * is built), then descends it once; the tree is evaluated as it is, never expanded, so its cost stays
 * linear in the filter's size. Every attribute it names is one of the User schema's
 * (`scim-paths.ts`) before the tree holds it.
 */

/** The longest filter read (characters). */
export const MAX_FILTER_LENGTH = 2_000;
/** The most comparisons (`attr op value`, `attr pr`) one filter holds. */
export const MAX_COMPARISONS = 64;
/** The deepest nesting of parentheses, `not (…)` and value filters (`emails[…]`). */
export const MAX_DEPTH = 8;

export const compareOperators = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le'] as const;
export type CompareOperator = (typeof compareOperators)[number];
export type CompareValue = string | number | boolean | null;

export type FilterNode =
  | { kind: 'present'; attribute: KnownAttribute }
  | { kind: 'compare'; attribute: KnownAttribute; op: CompareOperator; value: CompareValue }
  | { kind: 'and' | 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  /** `emails[type eq "work"]`: some value of a multi-valued (or the value of a complex) attribute matches `item`. */
  | { kind: 'values'; attribute: KnownAttribute; item: FilterNode };

interface Token {
  kind: 'word' | 'string' | '(' | ')' | '[' | ']';
  text: string;
  at: number;
}

const invalid = (message: string) => new BadRequestError({ code: 'INVALID_FILTER', message });

const isWordChar = (code: number) =>
  (code >= 48 && code <= 58) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 36 || code === 43 || code === 45 || code === 46 || code === 95;

/**
 * The pre-scan: the filter's tokens, each character looked at once; 400 past a bound before any
 * tree is built. Strings are JSON strings (RFC 7644: compValue is JSON's), kept with their quotes.
 */
export function tokenize(filter: string, maxLength = MAX_FILTER_LENGTH, maxComparisons = MAX_COMPARISONS): Token[] {
  if (filter.length > maxLength) throw invalid(`The filter is longer than ${maxLength} characters: split it into several requests`);
  const tokens: Token[] = [];
  let comparisons = 0;
  let depth = 0;
  for (let at = 0; at < filter.length; ) {
    const code = filter.charCodeAt(at);
    if (code === 32 || code === 9 || code === 10 || code === 13) {
      at++;
    } else if (code === 34) {
      let end = at + 1;
      while (end < filter.length && filter.charCodeAt(end) !== 34) end += filter.charCodeAt(end) === 92 ? 2 : 1;
      if (end >= filter.length) throw invalid(`The string that starts at character ${at + 1} is not closed: end it with a double quote`);
      tokens.push({ kind: 'string', text: filter.slice(at, end + 1), at });
      at = end + 1;
    } else if (code === 40 || code === 41 || code === 91 || code === 93) {
      const kind = filter[at] as Token['kind'];
      depth += kind === '(' || kind === '[' ? 1 : -1;
      if (depth < 0) throw invalid(`The filter closes a parenthesis or bracket at character ${at + 1} that it never opened`);
      if (depth > MAX_DEPTH) throw invalid(`The filter nests deeper than ${MAX_DEPTH} levels of parentheses and brackets: flatten it`);
      tokens.push({ kind, text: kind, at });
      at++;
    } else if (isWordChar(code)) {
      let end = at + 1;
      while (end < filter.length && isWordChar(filter.charCodeAt(end))) end++;
      const text = filter.slice(at, end);
      const lower = text.toLowerCase();
      if (lower === 'pr' || (compareOperators as readonly string[]).includes(lower)) comparisons++;
      if (comparisons > maxComparisons) throw invalid(`The filter has more than ${maxComparisons} comparisons: split it into several requests`);
      tokens.push({ kind: 'word', text, at });
      at = end;
    } else {
      throw invalid(`The filter has an unexpected character "${filter[at]}" at character ${at + 1}: quote values ("…") and use attribute names, operators and parentheses only`);
    }
  }
  return tokens;
}

/** The value a comparison's token names: a JSON string, number, true, false or null. */
function valueOf(token: Token | undefined, subject: string, op: string): CompareValue {
  if (!token || (token.kind !== 'string' && token.kind !== 'word')) throw invalid(`The filter compares "${subject}" with ${op} but gives no value: write ${subject} ${op} "value"`);
  if (token.kind === 'string') {
    try {
      return JSON.parse(token.text) as string;
    } catch {
      throw invalid(`The string at character ${token.at + 1} has an invalid escape: escape only \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX`);
    }
  }
  const lower = token.text.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (lower === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(token.text) && token.text.length <= 32) return Number(token.text);
  throw invalid(`The filter compares "${subject}" with ${op} "${token.text}" unquoted: quote a string value ("…"), or write a number, true, false or null`);
}

const ordered = new Set<CompareOperator>(['gt', 'lt', 'ge', 'le']);
const textual = new Set<CompareOperator>(['co', 'sw', 'ew']);

/** RFC 7644 §3.4.2.2's rules on which operator fits which attribute type. */
function checkOperator(attribute: KnownAttribute, op: CompareOperator, value: CompareValue): void {
  const { path, type } = attribute;
  if (type === 'complex') throw invalid(`"${path}" is complex: compare one of its sub-attributes (${path}.value, for example) or write ${path}[…]`);
  if (type === 'boolean' && (ordered.has(op) || textual.has(op))) throw invalid(`"${path}" is a boolean: compare it with eq or ne`);
  if (textual.has(op) && typeof value !== 'string') throw invalid(`${op} compares text: give "${path}" a quoted string`);
  if (ordered.has(op) && (value === null || typeof value === 'boolean')) throw invalid(`${op} orders values: give "${path}" a string or a date`);
}

/** Reads the tokens as RFC 7644's FILTER: `or` binds loosest, then `and`, then `not (…)` and parentheses. */
class Reader {
  private next = 0;
  constructor(private readonly tokens: Token[]) {}

  read(): FilterNode {
    if (this.tokens.length === 0) throw invalid('The filter is empty: write a comparison such as userName eq "ana@example.com"');
    const node = this.or();
    const extra = this.tokens[this.next];
    if (extra) throw invalid(`The filter goes on after a complete expression at character ${extra.at + 1} ("${extra.text}"): join expressions with and or or`);
    return node;
  }

  /** The tokens as a value filter of `parent` (the inside of `emails[…]`). */
  readWithin(parent: KnownAttribute): FilterNode {
    if (this.tokens.length === 0) throw invalid(`The value filter of "${parent.path}" is empty: write ${parent.path}[type eq "work"], for example`);
    const node = this.or(parent);
    const extra = this.tokens[this.next];
    if (extra) throw invalid(`The value filter goes on after a complete expression ("${extra.text}"): join expressions with and or or`);
    return node;
  }

  private peekWord(word: string): boolean {
    const token = this.tokens[this.next];
    return token?.kind === 'word' && token.text.toLowerCase() === word;
  }

  private expect(kind: Token['kind'], what: string): void {
    const token = this.tokens[this.next];
    if (token?.kind !== kind) throw invalid(`The filter lacks ${what}${token ? ` at character ${token.at + 1}` : ' at its end'}`);
    this.next++;
  }

  private or(parent?: KnownAttribute): FilterNode {
    return this.joined('or', () => this.and(parent));
  }

  private and(parent?: KnownAttribute): FilterNode {
    return this.joined('and', () => this.unary(parent));
  }

  /** One or more operands joined by `word`; a lone operand is itself. */
  private joined(word: 'and' | 'or', operand: () => FilterNode): FilterNode {
    const items = [operand()];
    while (this.peekWord(word)) {
      this.next++;
      items.push(operand());
    }
    return items.length === 1 ? items[0]! : { kind: word, items };
  }

  private unary(parent?: KnownAttribute): FilterNode {
    const token = this.tokens[this.next];
    if (!token) throw invalid('The filter ends where a comparison should follow: complete it, or remove the last and, or or not');
    if (token.kind === '(') {
      this.next++;
      const inner = this.or(parent);
      this.expect(')', 'a closing parenthesis');
      return inner;
    }
    if (token.kind === 'word' && token.text.toLowerCase() === 'not') {
      this.next++;
      if (this.tokens[this.next]?.kind !== '(') throw invalid('not applies to a parenthesized filter: write not (…)');
      return { kind: 'not', item: this.unary(parent) };
    }
    if (token.kind !== 'word') throw invalid(`The filter has "${token.text}" at character ${token.at + 1} where an attribute name should be`);
    this.next++;
    const attribute = resolveAttribute(token.text, 'filter', parent);
    if (this.tokens[this.next]?.kind === '[') {
      if (parent) throw invalid(`A value filter cannot hold another one (at character ${this.tokens[this.next]!.at + 1})`);
      if (!attribute.multiValued && attribute.type !== 'complex') throw invalid(`"${attribute.path}" has no sub-attributes to filter with […]`);
      this.next++;
      const item = this.or(attribute);
      this.expect(']', 'the closing bracket of a value filter');
      // `emails[type eq "work"].value eq "a@x"`: the sub-attribute's comparison joins the value filter.
      const sub = this.tokens[this.next];
      if (sub?.kind === 'word' && sub.text.startsWith('.')) {
        this.next++;
        const compared = this.comparison(resolveAttribute(sub.text.slice(1), 'filter', attribute), `${token.text}${sub.text}`);
        return { kind: 'values', attribute, item: { kind: 'and', items: [item, compared] } };
      }
      return { kind: 'values', attribute, item };
    }
    return this.comparison(attribute, token.text);
  }

  private comparison(attribute: KnownAttribute, subject: string): FilterNode {
    const operator = this.tokens[this.next];
    const op = operator?.kind === 'word' ? operator.text.toLowerCase() : '';
    if (op === 'pr') {
      this.next++;
      return { kind: 'present', attribute };
    }
    if (!(compareOperators as readonly string[]).includes(op)) {
      throw invalid(`The filter names "${subject}" without an operator: follow it with pr, or with ${compareOperators.join(', ')} and a value`);
    }
    this.next++;
    const value = valueOf(this.tokens[this.next], subject, op);
    this.next++;
    checkOperator(attribute, op as CompareOperator, value);
    return { kind: 'compare', attribute, op: op as CompareOperator, value };
  }
}

/** A PATCH `path` (RFC 7644 §3.5.2): an attribute, a value filter on it, and a sub-attribute of the values it selects. */
export interface PatchPath {
  attribute: KnownAttribute;
  filter?: FilterNode;
  sub?: KnownAttribute;
}

/** The longest PATCH path, and the most comparisons in its value filter (directories send one: `type eq "work"`). */
export const MAX_PATH_LENGTH = 300;
export const MAX_PATH_COMPARISONS = 4;

/** Reads a PATCH `path`; 400 `INVALID_PATH` (or `INVALID_FILTER` for its value filter) when it is not one of the schema's. */
export function readPatchPath(path: string): PatchPath {
  if (path.length > MAX_PATH_LENGTH) throw new BadRequestError({ code: 'INVALID_PATH', message: `The path is longer than ${MAX_PATH_LENGTH} characters: name one attribute` });
  const tokens = tokenize(path, MAX_PATH_LENGTH, MAX_PATH_COMPARISONS);
  const [first, open] = tokens;
  if (first?.kind !== 'word') throw new BadRequestError({ code: 'INVALID_PATH', message: 'The path must name an attribute, such as name.givenName or emails[type eq "work"].value' });
  const attribute = resolveAttribute(first.text, 'path');
  if (tokens.length === 1) return { attribute };
  if (open?.kind !== '[') throw new BadRequestError({ code: 'INVALID_PATH', message: `The path goes on after "${first.text}": write ${first.text}[filter] or ${first.text}[filter].subAttribute` });
  const last = tokens.at(-1)!;
  const subToken = last.kind === 'word' && last.text.startsWith('.') ? last : undefined;
  const inner = tokens.slice(2, subToken ? -2 : -1);
  if (tokens.at(subToken ? -2 : -1)?.kind !== ']') throw new BadRequestError({ code: 'INVALID_PATH', message: 'The path\u2019s value filter is not closed: end it with ]' });
  if (!attribute.multiValued) throw new BadRequestError({ code: 'INVALID_PATH', message: `"${attribute.path}" holds one value: name it, or one of its sub-attributes, without a filter` });
  const filter = new Reader(inner).readWithin(attribute);
  const sub = subToken ? resolveAttribute(subToken.text.slice(1), 'path', attribute) : undefined;
  return { attribute, filter, ...(sub ? { sub } : {}) };
}

/** Reads a filter into its tree; 400 `INVALID_FILTER` saying what to write when it is not one, or is past a bound. */
export function readFilter(filter: string): FilterNode {
  return new Reader(tokenize(filter)).read();
}
