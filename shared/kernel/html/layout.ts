import { createHash } from 'node:crypto';
import { html, trusted, type Html } from './html';

/**
 * The one layout of every HTML page the service answers (the realm's pages, the API reference's
 * shell): the document, its language, title, style and head, and the one content policy they are
 * served under. A page gives its body; nothing else of the document is written anywhere else.
 */

/** The realm's pages' style sheet: one, inline, allowed by its hash. */
export const PAGE_STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Hiragino Sans","Noto Sans JP",Meiryo,sans-serif;line-height:1.5}
body{margin:0;padding:2rem 1rem;background:Canvas;color:CanvasText}
main,nav{max-width:28rem;margin:0 auto}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:2rem 0 .75rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid GrayText;border-radius:.25rem}
input:focus,button:focus,a:focus{outline:3px solid Highlight;outline-offset:2px}
button{margin-top:1.25rem;padding:.6rem 1.2rem;font:inherit;font-weight:600;border:0;border-radius:.25rem;background:#1a56db;color:#fff;cursor:pointer}
button.secondary{background:transparent;color:inherit;border:1px solid GrayText}
.hint{font-size:.9rem;margin:.25rem 0 0}
.alert{padding:.75rem;border-radius:.25rem;border:2px solid #b3261e;margin:1rem 0}
.notice{padding:.75rem;border-radius:.25rem;border:2px solid #1e7b34;margin:1rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{font-weight:600}dd{margin:0;word-break:break-all}
nav{margin-top:2.5rem;font-size:.9rem}nav ul{list-style:none;padding:0;display:flex;gap:1rem;flex-wrap:wrap}
`.trim();

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The content policy of every page of the layout: nothing loads but the style sheet above (by its
 * hash); no script; no `<base>`; never framed. No `form-action`: browsers apply it to the redirects a
 * form's answer makes (back to the application, on to an organization's identity provider), which it
 * would block.
 */
export const PAGE_POLICY = ["default-src 'none'", `style-src ${sha256(PAGE_STYLE)}`, "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

export interface Page {
  /** The page's language (`lang`), one of the messages' languages. */
  language: string;
  title: string;
  /** What `<main>` holds. */
  body: Html;
  /** After `<main>`: the page's navigation (the account page's language links). */
  after?: Html;
  /** An address of this site to go on to at once (`<meta http-equiv="refresh">`): relative, so the page never sends anyone elsewhere. */
  refresh?: string;
}

/** An address that names neither a scheme nor a host: the refresh stays on this site. */
// eslint-disable-next-line no-control-regex
const RELATIVE = /^(?![a-z][a-z0-9+.-]*:)(?![\\/]{2})[^\s\u0000-\u001f]*$/i;

/** A page of the layout, served under `PAGE_POLICY`. */
export function renderPage({ language, title, body, after, refresh }: Page): string {
  if (refresh !== undefined && !RELATIVE.test(refresh)) throw new Error('renderPage: a page refreshes to a relative address only');
  return renderDocument({
    language,
    title,
    head: html`<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">${refresh === undefined ? undefined : html`
<meta http-equiv="refresh" content="${`0;url=${refresh}`}">`}
<style>${trusted(PAGE_STYLE)}</style>`,
    body: html`<main>${body}
</main>${after}`,
  });
}

/**
 * A document of the layout whose head is its own: the API reference's shell (its style sheets and
 * scripts are files, under the reference's own policy), or a page with one inline script (see
 * `scriptPolicy`). The title and every value in `head` and `body` are escaped as `html` escapes them.
 */
export function renderDocument({ language, title, head, body }: { language: string; title: string; head?: Html; body: Html }): string {
  return html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`.markup;
}

/**
 * The policy of a page whose one inline script is `script` (allowed by its hash), and that any page
 * may frame (no `frame-ancestors`): keycloak-js's third-party cookie check, the one page a script of
 * its own and framing need.
 */
export const scriptPolicy = (script: string) => ["default-src 'none'", `script-src ${sha256(script)}`, "base-uri 'none'"].join('; ');
