import * as z from 'zod/mini';
import { auditTrailSchemas } from '../../app/audit-trail/audit-trail.schemas';
import { auditTrailResponses } from '../../app/audit-trail/audit-trail.responses';
import { userResponses } from '../../domain/users/user.responses';
import { userSchemas } from '../../domain/users/user.schemas';
import { bot, environment, otherBot } from './examples';
import { listing, operationsUnder, type Outcome, type ResponseHeader } from './operation';

/**
 * Users of one organization (docs/api/users.md), Keycloak's attack detection and offline sessions for one of them, and the
 * organization's audit trail. Literal paths (`identity-provider`, `quicksearch`, `activate`) win over
 * `{userId}` in API Gateway, in middy's router and in the local gateway alike.
 */
const user = operationsUnder('users', 'user', '/org/{orgUUID}');

/** A user as the API answers it. */
const userAnswer = (description: string, headers?: ResponseHeader[]) => ({ status: 200 as const, description, json: () => userResponses().userSchema, ...(headers ? { headers } : {}) }) satisfies Outcome;

const alan = { name: 'Alan Turing', email: 'alan@example.com', company: 'Acme Support' };

export const usersApi = {
  identityProvider: user({
    id: 'users.identityProvider',
    method: 'GET',
    path: '/users/identity-provider',
    access: { org: 'member' },
    request: { path: () => userSchemas().orgPathSchema },
    summary: 'The user the bearer token belongs to',
    responses: [userAnswer('The user')],
  }),
  list: user(
    listing({
      id: 'users.list',
      path: '/users',
      access: { org: 'admin' },
      request: { path: () => userSchemas().orgPathSchema, query: () => userSchemas().userListQuerySchema },
      summary: 'List users of the organization',
      page: { items: 'users', schema: () => userResponses().userPageSchema, base: 0 },
    }),
  ),
  quicksearch: user({
    id: 'users.quicksearch',
    method: 'GET',
    path: '/users/quicksearch',
    access: { org: 'admin' },
    request: { path: () => userSchemas().orgPathSchema, query: () => userSchemas().quicksearchQuerySchema },
    summary: 'User names matching a term',
    responses: [{ status: 200, description: 'At most `limit` names, in alphabetical order', json: () => z.array(z.string()) }],
  }),
  create: user({
    id: 'users.create',
    method: 'POST',
    path: '/users',
    access: { org: 'admin' },
    request: { path: () => userSchemas().orgPathSchema, body: () => userSchemas().createUserSchema, headers: ['Language', 'IdempotencyKey'] },
    summary: 'Create a user and send the welcome e-mail',
    description: 'Idempotent with `Idempotency-Key`: a replay creates no second user and sends no second e-mail.',
    responses: [userAnswer('The user created', ['Idempotent-Replayed'])],
    example: { ...alan, password: 'Enigma-1912', confirmPassword: 'Enigma-1912', role: 'EDITOR', permissions: [{ environmentUuid: environment, botUuid: bot }] },
  }),
  activate: user({
    id: 'users.activate',
    method: 'PUT',
    path: '/users/activate',
    access: { org: 'admin' },
    request: { path: () => userSchemas().orgPathSchema, body: () => userSchemas().activateUserSchema, headers: ['Language', 'IdempotencyKey'] },
    summary: 'Reactivate a deleted user (named by e-mail)',
    description: 'Idempotent with `Idempotency-Key`: a replay sends no second e-mail.',
    responses: [userAnswer('The user, active again', ['Idempotent-Replayed'])],
    example: { email: alan.email, role: 'VIEWER', permissions: [{ environmentUuid: environment, botUuid: bot }] },
  }),
  get: user({
    id: 'users.get',
    method: 'GET',
    path: '/users/{userId}',
    access: { user: 'read' },
    request: { path: () => userSchemas().userPathSchema },
    summary: 'Read a user',
    responses: [userAnswer('The user')],
  }),
  update: user({
    id: 'users.update',
    method: 'PUT',
    path: '/users/{userId}',
    access: { user: 'update' },
    request: { path: () => userSchemas().userPathSchema, body: () => userSchemas().updateUserSchema },
    summary: 'Update a user',
    responses: [userAnswer('The user, updated')],
    example: {
      ...alan,
      role: 'EDITOR',
      permissions: [
        { environmentUuid: environment, botUuid: bot },
        { environmentUuid: environment, botUuid: otherBot },
      ],
    },
  }),
  delete: user({
    id: 'users.delete',
    method: 'DELETE',
    path: '/users/{userId}',
    access: { org: 'admin' },
    request: { path: () => userSchemas().userPathSchema },
    summary: 'Delete a user (logically)',
    responses: [{ status: 204, description: 'Deleted' }],
  }),
  // Keycloak's attack detection (its admin path, under the organization).
  bruteForce: user({
    id: 'users.bruteForce',
    method: 'GET',
    path: '/attack-detection/brute-force/users/{userId}',
    access: { org: 'admin' },
    request: { path: () => userSchemas().userPathSchema },
    summary: "The user's failed sign-ins and temporary lock (Keycloak's attack detection)",
    responses: [{ status: 200, description: 'The failure count and lock', json: () => userResponses().bruteForceStatusSchema }],
  }),
  clearBruteForce: user({
    id: 'users.clearBruteForce',
    method: 'DELETE',
    path: '/attack-detection/brute-force/users/{userId}',
    access: { org: 'admin' },
    request: { path: () => userSchemas().userPathSchema },
    summary: "Clear the user's failed sign-ins and lock",
    responses: [{ status: 204, description: 'Cleared' }],
  }),
  // A user's offline sessions, as Keycloak's admin console lists them, under the user. Beside
  // `/users/bulk-jobs/{jobId}` the two shapes match the same paths only for a job id `offline-sessions`,
  // which no job has (job ids are uuids): routers prefer the literal `bulk-jobs` segment.
  offlineSessions: user({
    id: 'users.offlineSessions',
    method: 'GET',
    path: '/users/{userId}/offline-sessions',
    access: { org: 'admin' },
    request: { path: () => userSchemas().userPathSchema, query: () => userSchemas().offlineSessionsQuerySchema },
    summary: "The user's offline sessions (long-lived refresh tokens of `scope=offline_access`)",
    description:
      'Oldest first, live ones only, `limit` a page (a user holds at most 100): the next page comes in the `Link` header ' +
      '(`rel="next"`, with its `pageToken`). Each is one offline session: its id is the `session_state` of its token ' +
      'responses. The tokens themselves are never shown.',
    responses: [{ status: 200, description: 'The offline sessions', json: () => z.array(userResponses().offlineSessionSchema) }],
  }),
  revokeOfflineSession: user({
    id: 'users.revokeOfflineSession',
    method: 'DELETE',
    path: '/users/{userId}/offline-sessions/{sessionId}',
    access: { org: 'admin' },
    request: { path: () => userSchemas().offlineSessionPathSchema },
    summary: 'End one of the user\'s offline sessions: its offline token stops working at once',
    description: 'Recorded as the audit event `OFFLINE_SESSION_REVOKED` of the user.',
    responses: [{ status: 204, description: 'Revoked' }],
  }),
  removeIdentityProviderLink: user({
    id: 'users.removeIdentityProviderLink',
    method: 'DELETE',
    path: '/users/{userId}/identity-provider-link',
    access: { org: 'admin', because: "Only an ADMIN removes a user's link to an identity provider" },
    request: { path: () => userSchemas().userPathSchema },
    summary: "Remove the user's link to an identity provider (ADMIN only)",
    description:
      "The link binds the user to one account (`sub`) of the organization's identity provider: no other account of it signs the user in. " +
      'Once removed, the next sign-in there links again (asking for the password of a user who has one, and of an ADMIN). ' +
      'A user without a link is a 404. Recorded as the audit event `USER_IDENTITY_PROVIDER_UNLINKED` of the user (change event `user.identity-provider.unlinked`).',
    responses: [{ status: 204, description: 'Removed' }],
  }),
  auditEvents: user(
    listing({
      id: 'users.auditEvents',
      path: '/audit-events',
      access: { org: 'admin', because: 'Only an ADMIN reads audit events' },
      request: { path: () => userSchemas().orgPathSchema, query: () => auditTrailSchemas().auditEventsQuerySchema },
      summary: "The organization's audit events (ADMIN only)",
      description:
        'Who changed what, when, in which request: newest first, filtered by `actor`, `resourceType`, `resourceUuid` and the inclusive ' +
        'time range `from`–`to` (all combined). Events are kept for the configured retention (400 days by default). A request reads ' +
        'every event of its time range (of one resource with `resourceUuid`): give `from`/`to` or `resourceUuid` on large organizations.',
      page: { items: 'audit events', schema: () => auditTrailResponses().auditEventPageSchema, base: 0 },
    }),
  ),
};
