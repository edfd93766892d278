import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../infra/cloud/project-root';

/**
 * A real headless Chromium for tests of the API's pages (the API reference, the account page): the
 * build `@sparticuz/chromium` ships, driven by `playwright-core`, no browser download.
 */

/**
 * Flags of @sparticuz/chromium's list that a user's browser does not have: with them the page would
 * run without the same-origin policy, and a test could pass that a real browser would fail.
 */
const WEAKENING_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content']);

let launchSettings: Promise<{ executablePath: string; args: string[] }> | undefined;

/**
 * Where @sparticuz/chromium unpacks its browser and the flags it recommends. The package is an ES
 * module only, which jest's CommonJS cannot load, so a Node process of its own asks it (once per test file).
 */
function chromiumSettings(): Promise<{ executablePath: string; args: string[] }> {
  launchSettings ??= promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', "import C from '@sparticuz/chromium'; console.log(JSON.stringify({ executablePath: await C.executablePath(), args: C.args }))"],
    { cwd: projectRoot },
  ).then(({ stdout }) => JSON.parse(stdout) as { executablePath: string; args: string[] });
  return launchSettings;
}

/** Runs `use` with a fresh headless Chromium, closed afterwards whatever happens. */
export async function withBrowser<T>(use: (browser: Browser) => Promise<T>): Promise<T> {
  const { executablePath, args } = await chromiumSettings();
  const browser = await chromium.launch({
    executablePath,
    args: [...args.filter((flag) => !WEAKENING_FLAGS.has(flag)), '--no-sandbox'],
    headless: true,
  });
  try {
    return await use(browser);
  } finally {
    await browser.close();
  }
}

/** What a page did while a test drove it. */
export interface PageActivity {
  /** Every URL the page requested (documents, scripts, styles, fetches), in order. */
  requests: string[];
  /** Console messages of type error, and uncaught exceptions. */
  errors: string[];
  /** Console messages of type warning (the browser's own, such as a header it cannot read, and the page's). */
  warnings: string[];
  /** Content-Security-Policy violations the page reported so far (directive and blocked URL). */
  violations: () => Promise<{ directive: string; blockedURI: string }[]>;
}

/**
 * Runs `use` with a new page of a fresh browser (closed afterwards), recording the page's requests,
 * errors, warnings and CSP violations. A typical test: `await page.goto(url)`, `await page.fill(selector, text)`,
 * `await page.click(selector)`, `await page.textContent(selector)`.
 */
export async function withPage<T>(use: (page: Page, activity: PageActivity) => Promise<T>): Promise<T> {
  return withBrowser(async (browser) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const requests: string[] = [];
    const errors: string[] = [];
    const warnings: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
      if (message.type() === 'warning') warnings.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
    // Injected by the browser itself, before the page's own scripts: a page's CSP does not apply to it.
    // Scripts for the page are text: this project's types have no DOM.
    await context.addInitScript({
      content:
        "const seen = []; Object.defineProperty(window, '__cspViolations', { value: seen });" +
        "document.addEventListener('securitypolicyviolation', (event) => seen.push({ directive: event.effectiveDirective, blockedURI: event.blockedURI }));",
    });
    const violations = () => page.evaluate<{ directive: string; blockedURI: string }[]>('window.__cspViolations ?? []');
    return use(page, { requests, errors, warnings, violations });
  });
}
