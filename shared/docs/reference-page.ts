import { isSwaggerUiFile, swaggerUiFile, swaggerUiFiles } from './swagger-ui-files';

/**
 * The interactive API reference at `/docs`: Swagger UI on `/openapi.json`, every file served by the
 * docs function itself (no CDN), under a policy that lets the page load only those files and call only
 * this API.
 */

/**
 * The reference's Content-Security-Policy, on the page and on each of its files. No inline script
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
 * Swagger UI's start. The token given in Authorize lives in the page only (persistAuthorization off);
 * no validator badge (it would load an image from swagger.io); the document's own query parameters
 * cannot point the page at another document (queryConfigEnabled off).
 */
const initializer = `'use strict';
window.ui = SwaggerUIBundle({
  url: 'openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  persistAuthorization: false,
  queryConfigEnabled: false,
  validatorUrl: null,
});
`;

/** A small icon of our own: Swagger UI's are PNG files, and the route answers text only. */
const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#49cc90"/><text x="16" y="22" font-family="monospace" font-size="16" font-weight="bold" text-anchor="middle" fill="#fff">{ }</text></svg>`;

/** Relative addresses: the page is at `/docs`, so `docs/…` are its files and `openapi.json` the document. */
const page = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Agent platform management API reference</title>
    <link rel="stylesheet" href="docs/swagger-ui.css">
    <link rel="icon" href="docs/favicon.svg" type="image/svg+xml">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/swagger-ui-bundle.js"></script>
    <script src="docs/initializer.js"></script>
  </body>
</html>
`;

/** The page's own files, besides Swagger UI's. */
const ownFiles = {
  'initializer.js': { text: initializer, contentType: 'text/javascript; charset=utf-8' },
  'favicon.svg': { text: favicon, contentType: 'image/svg+xml' },
} as const;

export const referencePage = (): string => page;

/** A file of the reference by its name under `/docs/`, or undefined when it is not one. */
export function referenceFile(name: string): { text: string; contentType: string } | undefined {
  if (Object.hasOwn(ownFiles, name)) return ownFiles[name as keyof typeof ownFiles];
  if (isSwaggerUiFile(name)) return { text: swaggerUiFile(name), contentType: swaggerUiFiles[name] };
  return undefined;
}
