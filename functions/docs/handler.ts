import { docsApi } from '../../shared/edge/api/docs.api';
import { describeApi, referencePageFor, requireReferenceFile } from '../../shared/edge/docs/api-reference';
import { REFERENCE_PERMISSIONS, REFERENCE_POLICY } from '../../shared/edge/docs/reference-page';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { publicOperation } from '../../shared/edge/http/public-route';

/** The API's description and its interactive reference. */

// Every answer carries the reference's policies: the page's, and its files' for when one is opened alone.
const policy = { 'content-security-policy': REFERENCE_POLICY, 'permissions-policy': REFERENCE_PERMISSIONS };
const shortCache = { 'cache-control': 'public, max-age=300' };
/**
 * The sign-in window Authorize opens may pass through the organization's own identity provider (another
 * site) before it comes back to the redirect page: the reference keeps its link to that window
 * (`same-origin-allow-popups`), and the redirect page, like the sign-in pages, keeps its link to the
 * reference (`unsafe-none`), where every other answer isolates itself (`same-origin`).
 */
const keepsItsPopups = { 'cross-origin-opener-policy': 'same-origin-allow-popups' };
const opensBack = { 'cross-origin-opener-policy': 'unsafe-none' };
const dayCache = { 'cache-control': 'public, max-age=86400' };

export const handlers = routes(
  // The API's root address leads a person to the reference.
  publicOperation(docsApi.root, { handle: async () => ({ status: 302, headers: { location: '/docs' } }) }),
  // The OpenAPI 3.1 document, with this API's own address as its server and, if named, the realm to sign in to.
  publicOperation(docsApi.openapi, {
    handle: async ({ query, headers }) => ({
      status: 200,
      body: describeApi(headers, query.realm),
      contentType: 'application/json',
      headers: { ...shortCache, ...policy },
    }),
  }),
  // The interactive reference (Swagger UI), for the realm named if any; Authorize signs in as the console's client.
  publicOperation(docsApi.ui, {
    handle: async ({ query }) => ({
      status: 200,
      body: referencePageFor(query.realm),
      contentType: 'text/html; charset=utf-8',
      headers: { ...shortCache, ...policy, ...keepsItsPopups },
    }),
  }),
  // One of the reference's files, from a fixed list; any other name is the standard 404.
  publicOperation(docsApi.asset, {
    handle: async ({ path }) => {
      const file = requireReferenceFile(path.asset);
      const opener = path.asset === 'oauth2-redirect.html' ? opensBack : {};
      return { status: 200, body: file.text, contentType: file.contentType, headers: { ...dayCache, ...policy, ...opener } };
    },
  }),
);

export const handler = createFunction('docs', handlers);
