import * as z from 'zod';
import {
  agentPageSchema,
  accountPasswordSchema,
  accountSignInSchema,
  accountSignOutSchema,
  agentSchema,
  auditEventPageSchema,
  bruteForceStatusSchema,
  bulkErrorSchema,
  bulkJobSchema,
  bulkUploadSchema,
  configurationSchema,
  discoverySchema,
  itemErrorSchema,
  jwksSchema,
  revisionDiffSchema,
  revisionPageSchema,
  logoutRequestSchema,
  revocationRequestSchema,
  tokenRequestSchema,
  tokenResponseSchema,
  userPageSchema,
  userInfoSchema,
  userSchema,
} from './responses';
import {
  bulkCreateDescription,
  bulkDeleteDescription,
  bulkGrantDescription,
  bulkRevokeDescription,
  bulkUploadDescription,
} from './bulk-descriptions';

/** What the document says of each route beyond its request schemas: its answers and extra headers. */

/** Response headers, each a `components.headers` entry. */
export type ResponseHeader = 'ETag' | 'Location' | 'Preference-Applied' | 'Content-Disposition' | 'Cache-Control' | 'Set-Cookie' | 'Idempotent-Replayed';
/** Request headers, each a `components.parameters` entry. */
export type RequestHeader = 'Language' | 'IfMatch' | 'Prefer' | 'IdempotencyKey';

export interface Outcome {
  status: number;
  description: string;
  /** A JSON body (a schema of `responses.ts`), or a text body of `text` media type. */
  json?: z.ZodType;
  text?: { mediaType: string; description: string };
  headers?: ResponseHeader[];
}

export interface OperationSpec {
  summary: string;
  description?: string;
  outcomes: Outcome[];
  requestHeaders?: RequestHeader[];
  /** A body the handler reads itself (the OAuth form), in place of its schemas' body. */
  formBody?: z.ZodType;
  /** The route answers OAuth's error body (RFC 6749 §5.2) instead of the standard one. */
  oauthErrors?: boolean;
  /** Statuses beyond the common ones (e.g. 413 for a file upload). */
  extraErrors?: number[];
  /** The error statuses, in place of the common ones. */
  errors?: number[];
  /**
   * Also a `default` response, any other error, for an operation whose only outcome is a redirect:
   * linters want every operation to name a success (a 2XX or `default`).
   */
  defaultError?: boolean;
  /** A public route that reads a bearer token itself (userinfo). */
  bearer?: boolean;
}

/** The errors of a public route that answers OAuth's body: its own 400 and 401, and the gateway's. */
const oauthStatuses = [400, 401, 429, 500, 503];
/** The errors of a public route that answers JSON: an unknown realm, and the gateway's. */
const realmStatuses = [404, 429, 500, 503];

const userInfo: OperationSpec = {
  summary: "The bearer token's user (OpenID Connect userinfo)",
  bearer: true,
  oauthErrors: true,
  errors: [401, 429, 500, 503],
  outcomes: [{ status: 200, description: 'Claims of the user', json: userInfoSchema, headers: ['Cache-Control'] }],
};

/** The errors of a public route with nothing to look up: only the gateway's. */
const publicStatuses = [429, 500, 503];
/** The errors of the reference's page and document: a `realm` that is no organization name, and the gateway's. */
const realmQueryStatuses = [422, ...publicStatuses];
const htmlPage = { mediaType: 'text/html', description: 'HTML' };
/** A form of the account page: it answers the next page (or the same form with its error), never JSON. */
function accountForm(summary: string, formBody: z.ZodType): OperationSpec {
  return {
    summary,
    formBody,
    // 403: posted from another site (login CSRF).
    errors: [403, ...realmStatuses],
    outcomes: [
      { status: 200, description: 'The next page, or the form again with what was wrong (in the page)', text: htmlPage, headers: ['Cache-Control'] },
      { status: 303, description: 'Done: see the account page', headers: ['Location', 'Set-Cookie'] },
    ],
  };
}

const agentRead = (description: string, status = 200): Outcome => ({ status, description, json: agentSchema, headers: ['ETag'] });
const jobAccepted: Outcome = { status: 202, description: 'The job, queued; poll it at Location', json: bulkJobSchema, headers: ['Location'] };
const itemErrors: Outcome = { status: 200, description: 'The bulk error list (spec 2.11): one entry per item not processed', json: z.array(itemErrorSchema) };

/** The four revision operations of supervisors or agents (`prefix`), whose one is `noun`. */
function revisionOperations(prefix: 'supervisors' | 'agents', noun: string): Record<string, OperationSpec> {
  return {
    [`${prefix}.revisions`]: {
      summary: `List the revisions of ${noun}, newest first`,
      outcomes: [{ status: 200, description: 'A page of revisions (1-based); revision N is the write that gave ETag "N"', json: revisionPageSchema }],
    },
    [`${prefix}.revision`]: {
      summary: `${noun[0]!.toUpperCase()}${noun.slice(1)} as it read right after a revision`,
      outcomes: [{ status: 200, description: 'The Agent (spec 2.1) of that revision', json: agentSchema }],
    },
    [`${prefix}.revisionDiff`]: {
      summary: 'What a revision changed: an RFC 6902 patch from another revision (by default the one before)',
      outcomes: [{ status: 200, description: 'The patch', json: revisionDiffSchema }],
    },
    [`${prefix}.restore`]: {
      summary: `Make the content of ${noun} that of a revision (a new revision, RESTORED)`,
      requestHeaders: ['IfMatch'],
      outcomes: [agentRead('The content restored, with its new ETag')],
    },
  };
}

export const operationSpecs: Record<string, OperationSpec> = {
  'auth.token': {
    summary: 'Obtain or renew tokens (password and refresh_token grants)',
    formBody: tokenRequestSchema,
    oauthErrors: true,
    errors: oauthStatuses,
    outcomes: [{ status: 200, description: 'Tokens', json: tokenResponseSchema, headers: ['Cache-Control'] }],
  },
  'auth.certs': {
    summary: "The realm's JSON Web Key Set",
    errors: realmStatuses,
    outcomes: [{ status: 200, description: 'The public keys that verify access tokens', json: jwksSchema, headers: ['Cache-Control'] }],
  },
  'auth.discovery': {
    summary: "The realm's OpenID Connect discovery document",
    errors: realmStatuses,
    outcomes: [{ status: 200, description: 'The OpenID configuration', json: discoverySchema, headers: ['Cache-Control'] }],
  },
  'auth.userinfo': userInfo,
  'auth.userinfoPost': { ...userInfo, summary: `${userInfo.summary}, by POST` },
  'auth.revoke': {
    summary: 'Revoke a token (RFC 7009): ends its session',
    formBody: revocationRequestSchema,
    oauthErrors: true,
    errors: oauthStatuses,
    outcomes: [{ status: 200, description: 'Revoked, or a token unknown here (the same answer)', headers: ['Cache-Control'] }],
  },
  'auth.logout': {
    summary: "End the refresh token's session (Keycloak's logout)",
    formBody: logoutRequestSchema,
    oauthErrors: true,
    errors: oauthStatuses,
    outcomes: [{ status: 204, description: 'Signed out', headers: ['Cache-Control'] }],
  },
  'auth.account': {
    summary: 'The account page: sign in, or see one\'s profile when signed in',
    description: 'HTML for people, in en, es, ja or pt (`kc_locale`, else `Accept-Language`). `login_hint` fills the e-mail field.',
    errors: realmStatuses,
    outcomes: [{ status: 200, description: 'The page', text: htmlPage, headers: ['Cache-Control'] }],
  },
  'auth.accountSignIn': accountForm('Sign in to the account page', accountSignInSchema),
  'auth.accountPassword': accountForm('Set a new password (required when the current one is temporary) or change it', accountPasswordSchema),
  'auth.accountSignOut': accountForm('Sign out of the account page', accountSignOutSchema),
  'users.identityProvider': { summary: 'The user the bearer token belongs to', outcomes: [{ status: 200, description: 'The user', json: userSchema }] },
  'users.list': { summary: 'List users of the organization', outcomes: [{ status: 200, description: 'A page of users (0-based)', json: userPageSchema }] },
  'users.quicksearch': {
    summary: 'User names matching a term',
    outcomes: [{ status: 200, description: 'At most `limit` names, in alphabetical order', json: z.array(z.string()) }],
  },
  'users.create': {
    summary: 'Create a user and send the welcome e-mail',
    description: 'Idempotent with `Idempotency-Key`: a replay creates no second user and sends no second e-mail.',
    requestHeaders: ['Language', 'IdempotencyKey'],
    outcomes: [{ status: 200, description: 'The user created', json: userSchema, headers: ['Idempotent-Replayed'] }],
  },
  'users.activate': {
    summary: 'Reactivate a deleted user (named by e-mail)',
    description: 'Idempotent with `Idempotency-Key`: a replay sends no second e-mail.',
    requestHeaders: ['Language', 'IdempotencyKey'],
    outcomes: [{ status: 200, description: 'The user, active again', json: userSchema, headers: ['Idempotent-Replayed'] }],
  },
  'users.get': { summary: 'Read a user', outcomes: [{ status: 200, description: 'The user', json: userSchema }] },
  'users.update': { summary: 'Update a user', outcomes: [{ status: 200, description: 'The user, updated', json: userSchema }] },
  'users.delete': { summary: 'Delete a user (logically)', outcomes: [{ status: 204, description: 'Deleted' }] },
  'users.bruteForce': {
    summary: "The user's failed sign-ins and temporary lock (Keycloak's attack detection)",
    outcomes: [{ status: 200, description: 'The failure count and lock', json: bruteForceStatusSchema }],
  },
  'users.clearBruteForce': { summary: "Clear the user's failed sign-ins and lock", outcomes: [{ status: 204, description: 'Cleared' }] },
  'users.auditEvents': {
    summary: "The organization's audit events (ADMIN only)",
    description:
      'Who changed what, when, in which request: newest first, filtered by `actor`, `resourceType`, `resourceUuid` and the inclusive ' +
      'time range `from`–`to` (all combined). Events are kept for the configured retention (400 days by default). A request reads ' +
      'every event of its time range (of one resource with `resourceUuid`): give `from`/`to` or `resourceUuid` on large organizations.',
    outcomes: [{ status: 200, description: 'A page of audit events (0-based)', json: auditEventPageSchema }],
  },
  'bulk.create': {
    summary: 'Create users from a CSV file',
    description: bulkCreateDescription,
    requestHeaders: ['Language', 'Prefer', 'IdempotencyKey'],
    extraErrors: [413],
    outcomes: [
      { status: 200, description: 'The bulk error list (spec 2.11)', json: z.array(bulkErrorSchema), headers: ['Location', 'Idempotent-Replayed'] },
      { ...jobAccepted, headers: ['Location', 'Preference-Applied', 'Idempotent-Replayed'] },
    ],
  },
  'bulk.upload': {
    summary: 'Start a bulk-create job whose file is uploaded to a presigned URL',
    description: bulkUploadDescription,
    requestHeaders: ['Language'],
    outcomes: [{ status: 201, description: 'The job and where to PUT the file', json: bulkUploadSchema, headers: ['Location'] }],
  },
  'bulk.job': { summary: 'Read a bulk-create job', outcomes: [{ status: 200, description: 'The job', json: bulkJobSchema }] },
  'bulk.failedRows': {
    summary: "The job's failed rows as CSV",
    outcomes: [
      {
        status: 200,
        description: 'The rows not processed, with the header row and an error column',
        text: { mediaType: 'text/csv', description: 'CSV' },
        headers: ['Content-Disposition'],
      },
    ],
  },
  'bulk.retry': { summary: 'Run a failed job again', outcomes: [jobAccepted] },
  'bulk.welcomes': { summary: 'Send again the welcome e-mails SES did not accept', outcomes: [jobAccepted] },
  'bulk.delete': { summary: 'Delete users by e-mail', description: bulkDeleteDescription, outcomes: [itemErrors] },
  'bulk.grant': { summary: 'Grant permissions from a CSV file', description: bulkGrantDescription, extraErrors: [413], outcomes: [itemErrors] },
  'bulk.revoke': { summary: 'Revoke permissions', description: bulkRevokeDescription, outcomes: [itemErrors] },
  'configurations.save': { summary: 'Save a configuration value of the caller', outcomes: [{ status: 200, description: 'The entry', json: configurationSchema }] },
  'configurations.list': {
    summary: "The caller's configuration values",
    outcomes: [{ status: 200, description: 'Every entry', json: z.array(configurationSchema) }],
  },
  'configurations.has': { summary: 'Whether the caller has a value for a key', outcomes: [{ status: 200, description: 'Whether it exists', json: z.boolean() }] },
  'configurations.listOfBot': {
    summary: "The caller's configuration values for one bot",
    outcomes: [{ status: 200, description: 'Every bot-specific entry', json: z.array(configurationSchema) }],
  },
  'configurations.hasOfBot': {
    summary: 'Whether the caller has a bot-specific value for a key',
    outcomes: [{ status: 200, description: 'Whether it exists', json: z.boolean() }],
  },
  'supervisors.list': { summary: 'List supervisors of a bot', outcomes: [{ status: 200, description: 'A page of supervisors (1-based)', json: agentPageSchema }] },
  'supervisors.default': { summary: 'The default supervisor of the bot', outcomes: [agentRead('The supervisor')] },
  'supervisors.get': { summary: 'Read a supervisor', outcomes: [agentRead('The supervisor')] },
  'supervisors.update': { summary: 'Update a supervisor', requestHeaders: ['IfMatch'], outcomes: [agentRead('The supervisor, updated')] },
  ...revisionOperations('supervisors', 'the supervisor'),
  'agents.list': { summary: 'List agents of a bot', outcomes: [{ status: 200, description: 'A page of agents (1-based)', json: agentPageSchema }] },
  'agents.quicksearch': {
    summary: 'Roles of agents matching a term',
    outcomes: [{ status: 200, description: 'Matching roles', text: { mediaType: 'text/plain', description: 'One role per line' } }],
  },
  'agents.create': {
    summary: 'Create an agent',
    description: 'Idempotent with `Idempotency-Key`: a replay creates no second agent.',
    requestHeaders: ['IdempotencyKey'],
    outcomes: [{ ...agentRead('The agent created', 201), headers: ['ETag', 'Idempotent-Replayed'] }],
  },
  'agents.get': { summary: 'Read an agent', outcomes: [agentRead('The agent')] },
  'agents.update': { summary: 'Update an agent', requestHeaders: ['IfMatch'], outcomes: [agentRead('The agent, updated')] },
  ...revisionOperations('agents', 'the agent'),
  'docs.root': {
    summary: "The API's root address: the interactive reference",
    errors: publicStatuses,
    defaultError: true,
    outcomes: [{ status: 302, description: 'See the reference, at `/docs`', headers: ['Location'] }],
  },
  'docs.openapi': {
    summary: 'This document (OpenAPI 3.1)',
    description: 'With `realm`, its OAuth2 password flow signs in to that organization; without, it offers the bearer token only.',
    errors: realmQueryStatuses,
    outcomes: [{ status: 200, description: 'The OpenAPI description of this API, for its configured subpaths', json: z.looseObject({ openapi: z.string() }), headers: ['Cache-Control'] }],
  },
  'docs.ui': {
    summary: 'The interactive API reference (Swagger UI, served with the API)',
    description: "With `realm`, its Authorize button signs in to that organization with an e-mail and password; the page's Organization field sets it.",
    errors: realmQueryStatuses,
    outcomes: [{ status: 200, description: 'The page', text: htmlPage, headers: ['Cache-Control'] }],
  },
  'docs.asset': {
    summary: "A file of the interactive reference (its script, style sheet or initializer)",
    errors: [404, ...publicStatuses],
    outcomes: [{ status: 200, description: 'The file', text: { mediaType: '*/*', description: 'JavaScript, CSS or PNG' }, headers: ['Cache-Control'] }],
  },
};
