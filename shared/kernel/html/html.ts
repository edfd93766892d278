/**
 * Markup by default escaped, as Keycloak's FreeMarker templates are: `html` is a tagged template whose
 * every interpolated value is escaped for HTML text and quoted attribute values, unless the value is
 * markup already, made by `html` itself or marked `trusted(…)`. A page is built only from these, so a
 * value reaches it unescaped only where the code says so, in one word one can search for.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes a value for HTML text and quoted attribute values: only through `html`, so no page escapes by hand. */
const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const made = Symbol('markup');

/** Markup that goes into a page as it is: made only by `html` and `trusted`. */
export interface Html {
  readonly [made]: true;
  readonly markup: string;
  toString(): string;
}

const markupOf = (markup: string): Html => ({ [made]: true, markup, toString: () => markup });

export const isHtml = (value: unknown): value is Html => typeof value === 'object' && value !== null && made in value;

/**
 * Marks `markup` as trusted: it goes into a page unescaped. Only for markup the code itself holds (a
 * constant, or markup built from escaped values), never for anything a request or a record brings.
 */
export const trusted = (markup: string): Html => markupOf(markup);

/** What an interpolation may be: a value (escaped), markup (as is), a list of either, or nothing. */
export type HtmlValue = string | number | Html | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (isHtml(value)) return value.markup;
  return escapeHtml(String(value));
}

/**
 * An attribute value without quotes would end at the first space of a value, which escaping does not
 * prevent: `html` refuses an interpolation right after `=`, so every attribute is written quoted.
 */
const UNQUOTED_ATTRIBUTE = /=\s*$/;

/** An attribute whose value the browser follows as an address: escaping keeps it in its quotes, not off `javascript:`. */
const URL_ATTRIBUTE = /\s(?:href|src|action|formaction)\s*=\s*["']$/i;
/** A value that names its scheme (`javascript:`, `data:`): only these are followed as they are; a relative address is. */
// Browsers drop leading spaces and control characters before a scheme: so does the check.
// eslint-disable-next-line no-control-regex
const SCHEME = /^[\s\u0000-\u001f]*([a-z][a-z0-9+.-]*):/i;
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);
/** What an address of another scheme becomes, as Go's html/template does: a link to nowhere. */
export const UNSAFE_URL = 'about:invalid#unsafe-url';

const address = (value: HtmlValue): HtmlValue => {
  if (typeof value !== 'string') return value;
  // A URL parser drops tabs and line breaks anywhere (`java\tscript:` is `javascript:`).
  const scheme = SCHEME.exec(value.replace(/[\t\n\r]/g, ''))?.[1]?.toLowerCase();
  return scheme === undefined || SAFE_SCHEMES.has(scheme) ? value : UNSAFE_URL;
};

/**
 * The tagged template: `html\`<p title="${title}">${text}</p>\`` escapes `title` and `text`. A value
 * in an address attribute (`href`, `src`, `action`, `formaction`) that is not markup is also kept to
 * http, https and mailto addresses (or a relative one).
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let markup = strings[0]!;
  values.forEach((value, i) => {
    if (UNQUOTED_ATTRIBUTE.test(markup)) throw new Error(`html: quote the attribute before interpolation ${i + 1} (${JSON.stringify(markup.slice(-40))})`);
    markup += render(URL_ATTRIBUTE.test(markup) ? address(value) : value) + strings[i + 1]!;
  });
  return markupOf(markup);
}
