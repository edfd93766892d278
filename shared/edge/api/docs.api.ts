import * as z from 'zod/mini';
import { authSchemas } from '../../app/auth/auth.schemas';
import { lazy } from '../../kernel/lazy';
import { gatewayStatuses, operationsUnder } from './operation';

/** The API's own description and its interactive reference, public like the OpenID discovery. */
const docs = operationsUnder('docs', 'root', '', { access: 'public' });

/** The errors of the reference's page and document: a `realm` that is no organization name, and the gateway's. */
const realmQueryErrors = { only: [422, ...gatewayStatuses] };

export const docsApi = {
  root: docs({
    id: 'docs.root',
    method: 'GET',
    path: '/',
    summary: "The API's root address: the interactive reference",
    errors: { only: gatewayStatuses, anyOther: true },
    responses: [{ status: 302, description: 'See the reference, at `/docs`', headers: ['Location'] }],
  }),
  openapi: docs({
    id: 'docs.openapi',
    method: 'GET',
    path: '/openapi.json',
    request: { query: () => authSchemas().realmQuerySchema },
    summary: 'This document (OpenAPI 3.1)',
    description:
      "With `realm`, its OAuth2 authorization code flow (with PKCE) signs in to that organization on its sign-in page; without, it offers the bearer token only.",
    errors: realmQueryErrors,
    responses: [
      {
        status: 200,
        description: 'The OpenAPI description of this API, for its configured subpaths',
        json: () => z.looseObject({ openapi: z.string() }),
        headers: ['Cache-Control'],
      },
    ],
  }),
  ui: docs({
    id: 'docs.ui',
    method: 'GET',
    path: '/docs',
    request: { query: () => authSchemas().realmQuerySchema },
    summary: 'The interactive API reference (Swagger UI, served with the API)',
    description:
      "With `realm`, its Authorize button signs in to that organization on its sign-in page, in a window that comes back to `/docs/oauth2-redirect.html`; the page's Organization field sets it.",
    errors: realmQueryErrors,
    responses: [{ status: 200, description: 'The page', text: { mediaType: 'text/html', description: 'HTML' }, headers: ['Cache-Control'] }],
  }),
  asset: docs({
    id: 'docs.asset',
    method: 'GET',
    path: '/docs/{asset}',
    request: { path: lazy(() => z.object({ asset: z.string() })) },
    summary: 'A file of the interactive reference (its script, style sheet, initializer or the page that receives the sign-in)',
    errors: { only: [404, ...gatewayStatuses] },
    responses: [{ status: 200, description: 'The file', text: { mediaType: '*/*', description: 'JavaScript, CSS, SVG or HTML' }, headers: ['Cache-Control'] }],
  }),
};
