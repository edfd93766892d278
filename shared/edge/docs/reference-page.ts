import { html } from '../../kernel/html/html';
import { renderDocument } from '../../kernel/html/layout';
import { denyingPermissions, PAGE_DENIED_FEATURES } from '../http/page-policy';
import { isSwaggerUiFile, swaggerUiFile, swaggerUiFiles } from './swagger-ui-files';

/**
 * The interactive API reference at `/docs`: Swagger UI on `/openapi.json`, every file served by the
 * docs function itself (no CDN), under a policy that lets the page load only those files and call only
 * this API. `/docs?realm=<organization>` loads the document whose OAuth2 authorization code flow
 * signs in to that organization; the page's Organization field sets it.
 */

/**
 * The reference's Content-Security-Policy, on the page and on each of its files: the one page of the
 * layout (`kernel/html/layout.ts`) whose style sheets and scripts are files, Swagger UI's, and so the
 * one that does not take the layout's `PAGE_POLICY`. No inline script
 * (the initializer is a file of its own); styles from our files only: Swagger UI sets element styles
 * through the DOM (React), which a policy does not govern, so it needs no 'unsafe-inline'.
 * `data:` images are the icons its style sheet embeds; `connect-src 'self'` carries the document and
 * "Try it out" (the document's server is this API's own address).
 */
export const REFERENCE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * The reference's Permissions-Policy: that of every page, less `web-share`, which Chromium on Linux
 * does not know and reports as a console warning; the reference runs only its own scripts and embeds
 * nothing, so there is nothing that could share.
 */
export const REFERENCE_PERMISSIONS = denyingPermissions(PAGE_DENIED_FEATURES.filter((feature) => feature !== 'web-share'));

/**
 * Swagger UI's start, on the document the page names (`data-url`, for its realm). The token given in
 * Authorize lives in the page only (persistAuthorization off); no validator badge (it would load an
 * image from swagger.io); the document's own query parameters cannot point the page at another
 * document (queryConfigEnabled off).
 *
 * Authorize signs in with the authorization code flow and PKCE as the console's public client
 * (`data-client-id`): the sign-in page opens in a window that comes back to `docs/oauth2-redirect.html`
 * beside the page, wherever the page is served (a stage's base path included). Swagger UI then sends
 * the code, the verifier and the client id in the token request's form, and no secret.
 */
const initializer = `'use strict';
const root = document.getElementById('swagger-ui');
window.ui = SwaggerUIBundle({
  url: root.dataset.url,
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  persistAuthorization: false,
  queryConfigEnabled: false,
  validatorUrl: null,
  oauth2RedirectUrl: new URL('docs/oauth2-redirect.html', location.href).href,
});
window.ui.initOAuth({ clientId: root.dataset.clientId, usePkceWithAuthorizationCodeGrant: true, scopes: 'openid' });
`;

/**
 * The page the sign-in window comes back to, with the code in its address: Swagger UI's own script
 * (`oauth2-redirect.js`, a file under the page's policy) hands the code to the reference that opened
 * the window, and closes it. Like every answer of the API it carries `Referrer-Policy: no-referrer`, so
 * the code in its address goes no further.
 */
const redirectPage = renderDocument({
  language: 'en',
  title: 'Signing in to the API reference',
  head: html`<link rel="icon" href="favicon.svg" type="image/svg+xml">`,
  body: html`<script src="oauth2-redirect.js"></script>`,
});

/** The Organization field's look, beside Swagger UI's (whose width and colours it follows). */
const styles = `.realm { box-sizing: border-box; max-width: 1460px; margin: 0 auto; padding: 16px 20px 0; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; font-family: sans-serif; font-size: 14px; color: #3b4151; }
.realm label { font-weight: 700; }
.realm input { min-width: 14em; padding: 6px 10px; border: 1px solid #d9d9d9; border-radius: 4px; font: inherit; }
.realm button { padding: 6px 16px; border: 2px solid #49cc90; border-radius: 4px; background: #fff; color: #49cc90; font: inherit; font-weight: 700; cursor: pointer; }
.realm p { margin: 0; }
`;

/** A small icon of our own: Swagger UI's are PNG files, and the route answers text only. */
const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#49cc90"/><text x="16" y="22" font-family="monospace" font-size="16" font-weight="bold" text-anchor="middle" fill="#fff">{ }</text></svg>`;

/**
 * What the Organization field accepts: `REALM_NAME` in any case (the `realm` query lower-cases it), the
 * hyphen escaped as a pattern attribute (compiled with the `v` flag) needs.
 */
const realmPattern = '[A-Za-z0-9][A-Za-z0-9\\-]{1,62}';

/**
 * The page, for a realm or none, signing in as the console's client. Relative addresses: the page is
 * at `/docs`, so `docs/…` are its files, `openapi.json` the document and the form's `docs` the page again.
 */
export function referencePage({ realm, clientId }: { realm?: string; clientId: string }): string {
  const url = realm ? `openapi.json?realm=${encodeURIComponent(realm)}` : 'openapi.json';
  const hint = realm
    ? html`<strong>Authorize</strong> signs in to <strong>${realm}</strong> on its sign-in page.`
    : html`Name your organization to sign in to it under <strong>Authorize</strong>.`;
  return renderDocument({
    language: 'en',
    title: 'Agent platform management API reference',
    head: html`<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="stylesheet" href="docs/reference.css">
<link rel="icon" href="docs/favicon.svg" type="image/svg+xml">`,
    body: html`<form class="realm" action="docs" method="get">
<label for="realm">Organization</label>
<input id="realm" name="realm" value="${realm ?? ''}" required pattern="${realmPattern}" placeholder="its name, e.g. acme" autocapitalize="none" spellcheck="false">
<button type="submit">Use</button>
<p>${hint}</p>
</form>
<div id="swagger-ui" data-url="${url}" data-client-id="${clientId}"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/initializer.js"></script>`,
  });
}

/** The page's own files, besides Swagger UI's. */
const ownFiles = {
  'initializer.js': { text: initializer, contentType: 'text/javascript; charset=utf-8' },
  'oauth2-redirect.html': { text: redirectPage, contentType: 'text/html; charset=utf-8' },
  'reference.css': { text: styles, contentType: 'text/css; charset=utf-8' },
  'favicon.svg': { text: favicon, contentType: 'image/svg+xml' },
} as const;

/** A file of the reference by its name under `/docs/`, or undefined when it is not one. */
export function referenceFile(name: string): { text: string; contentType: string } | undefined {
  if (Object.hasOwn(ownFiles, name)) return ownFiles[name as keyof typeof ownFiles];
  if (isSwaggerUiFile(name)) return { text: swaggerUiFile(name), contentType: swaggerUiFiles[name] };
  return undefined;
}
