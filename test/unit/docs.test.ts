import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import * as ts from 'typescript';

/**
 * The documents cannot rot silently: every relative link and heading anchor of every Markdown file
 * resolves, and every code comment that cites a document names a file and heading that exist.
 * Anchors are computed as GitHub computes them (github-slugger: lower case, punctuation removed,
 * spaces to hyphens, a repeated heading suffixed -1, -2…). Citations in code are paths from the
 * repository's root: `docs/data-model.md#the-users-index`, or `README.md "Set up"` with a heading's text.
 */

const root = join(__dirname, '../..');
const skipped = new Set(['node_modules', 'cdk.out', 'coverage', 'dist', '.git', '.local', '.cognito']);
const codeFolders = ['shared', 'functions', 'infra', 'scripts', 'bench', 'test'];
const generated = 'clients/typescript/src/generated';

function filesUnder(folder: string, keep: (file: string) => boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (skipped.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path, keep));
    else if (keep(entry.name)) found.push(path);
  }
  return found;
}

const markdown = new MarkdownIt({ html: true });
type Token = ReturnType<typeof markdown.parse>[number];

interface MarkdownFile {
  anchors: Set<string>;
  links: { href: string; line: number }[];
}

/** The text GitHub slugs: a heading's rendered text, code spans included, markup left out. */
const textOf = (inline: Token): string =>
  (inline.children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');

const parsed = new Map<string, MarkdownFile>();
function markdownFile(path: string): MarkdownFile {
  const known = parsed.get(path);
  if (known) return known;
  const tokens = markdown.parse(readFileSync(path, 'utf8'), {});
  const slugger = new GithubSlugger();
  const file: MarkdownFile = { anchors: new Set(), links: [] };
  tokens.forEach((token, at) => {
    if (token.type === 'heading_open') file.anchors.add(slugger.slug(textOf(tokens[at + 1]!)));
    if (token.type === 'inline') {
      for (const child of token.children ?? []) {
        const href = child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
        if (href !== null) file.links.push({ href: String(href), line: (token.map?.[0] ?? 0) + 1 });
      }
    }
    // Raw HTML anchors (`<a id="…">`, `<a name="…">`) are link targets too.
    if (token.type === 'html_block' || token.type === 'inline') {
      for (const match of token.content.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) file.anchors.add(match[1]!);
    }
  });
  parsed.set(path, file);
  return file;
}

/** Why a link or citation to `target` (a path, maybe with `#anchor`) from `base` does not resolve, or undefined. */
function brokenTarget(base: string, target: string): string | undefined {
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === '' ? base : resolve(dirname(base), pathPart);
  if (!file.startsWith(root)) return `${pathPart} points outside the repository`;
  if (!existsSync(file)) return `${relative(root, file)} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `#${anchor} on ${relative(root, file)}, which has no headings`;
  const { anchors } = markdownFile(file);
  if (anchors.has(anchor)) return undefined;
  return `${relative(root, file)} has no heading #${anchor} (it has ${[...anchors].map((a) => `#${a}`).join(', ')})`;
}

const external = /^[a-z][a-z0-9+.-]*:/i;
const markdownFiles = filesUnder(root, (name) => name.endsWith('.md')).sort();

describe('the Markdown documents', () => {
  it('are found: README.md, docs/, bench/ and events/', () => {
    const names = markdownFiles.map((file) => relative(root, file));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'bench/users-figures.md', 'events/README.md']));
  });

  it.each(markdownFiles.map((file) => [relative(root, file), file]))('%s: every relative link and anchor resolves', (_name, file) => {
    const broken = markdownFile(file)
      .links.filter(({ href }) => !external.test(href))
      .map(({ href, line }) => {
        const why = brokenTarget(file, href);
        return why && `line ${line}: (${href}): ${why}`;
      })
      .filter(Boolean);
    expect(broken).toEqual([]);
  });
});

/** Tokens after which a slash divides; after any other, it starts a regular expression. */
const operandEnds = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.SuperKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
  ts.SyntaxKind.PlusPlusToken,
  ts.SyntaxKind.MinusMinusToken,
]);

/** Every comment of a TypeScript or JavaScript file, with the line it starts on (TypeScript's own scanner). */
function commentsOf(file: string): { text: string; line: number }[] {
  const source = readFileSync(file, 'utf8');
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source);
  const comments: { text: string; line: number }[] = [];
  // Open braces inside each template substitution being read: its closing brace resumes the template.
  const templates: number[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      comments.push({ text: scanner.getTokenText(), line: source.slice(0, scanner.getTokenStart()).split('\n').length });
      continue;
    }
    if (kind === ts.SyntaxKind.NewLineTrivia || kind === ts.SyntaxKind.WhitespaceTrivia) continue;
    if (kind === ts.SyntaxKind.TemplateHead) templates.push(0);
    else if (kind === ts.SyntaxKind.OpenBraceToken && templates.length > 0) templates[templates.length - 1]!++;
    else if (kind === ts.SyntaxKind.CloseBraceToken && templates.length > 0) {
      if (templates[templates.length - 1] === 0) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) templates.pop();
      } else templates[templates.length - 1]!--;
    } else if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !operandEnds.has(previous)) {
      kind = scanner.reScanSlashToken();
    }
    previous = kind;
  }
  return comments;
}

/** A path ending in .md (not a pattern such as `bench/<name>-figures.md`), then an anchor or a quoted heading. */
const citation = /(?<![\w<>*/.${}-])((?:[\w.-]+\/)*[\w.-]+\.md)(?:(#[\w-]+)|(?:'s)?,? "([^"]+)")?/g;
/** The readme named without its path: the citation cannot be checked. */
const bareReadme = /\bREADME\b(?!\.md|-figures)/;

const codeFiles = codeFolders
  .flatMap((folder) => filesUnder(join(root, folder), (name) => /\.(ts|cjs|mjs|js)$/.test(name)))
  .filter((file) => !relative(root, file).startsWith(generated))
  .concat(['.dependency-cruiser.cjs', 'jest.config.cjs', 'eslint.config.mjs'].map((name) => join(root, name)))
  .sort();

describe('citations of documents in code comments', () => {
  const cited = codeFiles.flatMap((file) =>
    commentsOf(file).flatMap(({ text, line }) => {
      const where = `${relative(root, file)}:${line}`;
      const problems: string[] = [];
      for (const match of text.matchAll(citation)) {
        const [, path, anchor, heading] = match;
        const target = heading === undefined ? `${path}${anchor ?? ''}` : `${path}#${new GithubSlugger().slug(heading)}`;
        const why = brokenTarget(join(root, 'citing-from-the-root'), target);
        problems.push(why ? `${where}: "${match[0]}": ${why}` : '');
      }
      if (bareReadme.test(text)) problems.push(`${where}: names the README without a path and heading: cite it as README.md#<anchor> or docs/<page>.md#<anchor>`);
      return problems.map((problem) => ({ where, problem }));
    }),
  );

  it('are found (the check reads comments)', () => {
    expect(cited.length).toBeGreaterThan(5);
  });

  it('name files and headings that exist', () => {
    expect(cited.map(({ problem }) => problem).filter(Boolean)).toEqual([]);
  });
});
