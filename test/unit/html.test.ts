import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { html, isHtml, trusted, UNSAFE_URL, type HtmlValue } from '../../shared/kernel/html/html';
import { PAGE_POLICY, PAGE_STYLE, renderDocument, renderPage } from '../../shared/kernel/html/layout';
import { languages } from '../../shared/kernel/messages/languages';
import { messagesOf } from '../../shared/kernel/messages/messages-of';
import { problemPage, signedOutPage } from '../../shared/app/pages/problem-pages';
import { THIRD_PARTY_COOKIES_PAGE, THIRD_PARTY_COOKIES_POLICY } from '../../shared/app/sign-in/third-party-cookies';
import { referencePage } from '../../shared/edge/docs/reference-page';

/** What `html` makes of one value in text or a quoted attribute. */
const escapeHtml = (value: string) => html`${value}`.markup;

const hostile = `<script>alert("x")</script>' onmouseover='steal()' & "quoted"`;

describe('html: every interpolation escaped unless it is markup the code made', () => {
  test('a value in text and in a quoted attribute is escaped, every special character', () => {
    const page = html`<p title="${hostile}" data-x='${hostile}'>${hostile}</p>`.markup;

    expect(page).toBe(`<p title="${escapeHtml(hostile)}" data-x='${escapeHtml(hostile)}'>${escapeHtml(hostile)}</p>`);
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
    expect(page).not.toContain('<script>');
  });

  test('markup made by html, or marked trusted, is kept as it is; values inside it were escaped when it was made', () => {
    const inner = html`<strong>${hostile}</strong>`;
    const outer = html`<p>${inner}${trusted('<em>kept</em>')}</p>`.markup;

    expect(outer).toBe(`<p><strong>${escapeHtml(hostile)}</strong><em>kept</em></p>`);
  });

  test('lists are rendered item by item, each escaped or kept; nothing, false and undefined render nothing; numbers are text', () => {
    const items: HtmlValue[] = ['<a>', html`<li>b</li>`, undefined, null, false, 3];

    expect(html`<ul>${items}</ul>`.markup).toBe('<ul>&lt;a&gt;<li>b</li>3</ul>');
  });

  test('a string that looks like markup, or an object with a markup field, is still a value', () => {
    const forged = { markup: '<b>forged</b>', toString: () => '<b>forged</b>' };

    expect(isHtml(forged)).toBe(false);
    expect(html`${forged as unknown as string}`.markup).toBe('&lt;b&gt;forged&lt;/b&gt;');
    expect(html`${'<b>not markup</b>'}`.markup).toBe('&lt;b&gt;not markup&lt;/b&gt;');
  });

  test('an attribute without quotes is refused: escaping cannot stop a space from ending it', () => {
    expect(() => html`<input value=${'x onfocus=alert(1)'}>`).toThrow(/quote the attribute/);
    expect(() => html`<input value= ${'x'}>`).toThrow(/quote the attribute/);
  });

  test('an address attribute follows only http, https, mailto and relative addresses; markup the code made is kept', () => {
    const link = (url: string) => html`<a href="${url}">x</a>`.markup;

    expect(link('https://example.test/a?b=1&c=2')).toBe('<a href="https://example.test/a?b=1&amp;c=2">x</a>');
    expect(link('docs?realm=acme')).toBe('<a href="docs?realm=acme">x</a>');
    expect(link('mailto:someone@example.test')).toBe('<a href="mailto:someone@example.test">x</a>');
    for (const hostileUrl of ['javascript:alert(1)', ' JavaScript:alert(1)', '\u0001javascript:x', 'java\tscript:x', 'java\nscript:x', 'data:text/html,<script>x</script>', 'vbscript:x']) {
      expect(link(hostileUrl)).toBe(`<a href="${UNSAFE_URL}">x</a>`);
    }
    expect(html`<form action='${'javascript:x'}'></form>`.markup).toBe(`<form action='${UNSAFE_URL}'></form>`);
    expect(html`<img src="${'data:image/png;base64,AA'}">`.markup).toBe(`<img src="${UNSAFE_URL}">`);
    expect(html`<a href="${trusted('data:text/plain,kept')}">x</a>`.markup).toBe('<a href="data:text/plain,kept">x</a>');
    // Only the attribute names an address: the same value elsewhere is text.
    expect(html`<a title="${'javascript:x'}">${'javascript:x'}</a>`.markup).toBe('<a title="javascript:x">javascript:x</a>');
  });

  test('no string, whatever its characters, opens a tag or leaves its attribute', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        const markup = html`<p title="${value}">${value}</p>`.markup;
        const inside = markup.slice('<p title="'.length, -'</p>'.length);
        expect(inside.split('"').length).toBe(2);
        expect(markup.match(/</g)).toHaveLength(2);
      }),
    );
  });
});

describe('one layout, one policy', () => {
  test('the document: its language, its title escaped, the style the policy allows by its hash', () => {
    const page = renderPage({ language: 'ja', title: hostile, body: html`<p>${hostile}</p>` });

    expect(page).toMatch(/^<!doctype html>\n<html lang="ja">/);
    expect(page).toContain(`<title>${escapeHtml(hostile)}</title>`);
    expect(page).toContain(`<style>${PAGE_STYLE}</style>`);
    expect(PAGE_POLICY).toContain(`style-src 'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`);
    expect(PAGE_POLICY).toContain("frame-ancestors 'none'");
    expect(PAGE_POLICY).not.toContain('script-src');
    expect(PAGE_POLICY).not.toContain('form-action');
  });

  test('the third-party cookie check: one script, allowed by its hash alone, and framed by anyone', () => {
    const script = THIRD_PARTY_COOKIES_PAGE.match(/<script>(.*)<\/script>/)?.[1];

    expect(script).toBe("window.parent.postMessage('unsupported', '*');");
    expect(THIRD_PARTY_COOKIES_POLICY).toBe(`default-src 'none'; script-src 'sha256-${createHash('sha256').update(script!).digest('base64')}'; base-uri 'none'`);
  });

  test("the reference's shell escapes the realm in its text and attributes", () => {
    const page = referencePage({ realm: 'a"><script>x()</script>', clientId: 'client"id' });

    expect(page).not.toContain('<script>x()');
    expect(page).toContain('value="a&quot;&gt;&lt;script&gt;x()&lt;/script&gt;"');
    expect(page).toContain('<strong>a&quot;&gt;&lt;script&gt;x()&lt;/script&gt;</strong>');
    expect(page).toContain('data-client-id="client&quot;id"');
    expect(page).toContain('data-url="openapi.json?realm=a%22%3E%3Cscript%3Ex()%3C%2Fscript%3E"');
    expect(renderDocument({ language: 'en', title: 't', body: html`` })).toContain('<html lang="en">');
  });
});

describe('the pages that only say something, in every language', () => {
  test.each(languages)('%s: the signed-out page and each problem, with their words from the messages', (language) => {
    const words = messagesOf(language).pages;

    expect(signedOutPage(language)).toContain(`<h1>${escapeHtml(words.signedOutTitle)}</h1>`);
    expect(signedOutPage(language)).toContain(`<html lang="${language}">`);
    for (const [problem, text] of Object.entries(words.problems)) {
      const page = problemPage(problem as keyof typeof words.problems, language, { signOut: true });
      expect(page).toContain(escapeHtml(text));
      expect(page).toContain(`<title>${escapeHtml(`${words.errorTitle}: ${words.signOutProblemTitle}`)}</title>`);
    }
  });
});
