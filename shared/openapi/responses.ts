import * as z from 'zod';
import { errorCatalogue, type ErrorCode } from '../errors';
import { communicationStyles } from '../org/org.entities';
import { roles } from '../users/user.entities';
import { auditActions, auditResourceTypes } from '../audit/audit-kinds';

/**
 * Response bodies as zod schemas: the contract the mappers (`shared/*\/*.mapper.ts`) and handlers must
 * keep. Objects are strict, so a field a mapper lets out by mistake fails the contract tests.
 */

/** The named response schemas, each a `components.schemas` entry of the document. */
export const responseRegistry = z.registry<{ id: string }>();

const errorCodes = Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]];

const dateTime = z.iso.datetime({ offset: true });

/** Spec 7: the standard error body. */
export const errorBodySchema = z
  .strictObject({
    timestamp: z.int().meta({ description: 'Epoch milliseconds', format: 'int64' }),
    errorCode: z.enum(errorCodes),
    errorType: z.enum(['API_ERROR', 'API_INFO', 'USER_ERROR']),
    message: z.string(),
    path: z.string().meta({ description: 'The request path' }),
  })
  .meta({ description: 'The standard error body (spec 7).' }).register(responseRegistry, { id: 'ErrorBody' });

/** A 422 `details` entry: a field issue, or an entry of a bulk error list (then with `email` and `line`). */
export const fieldIssueSchema = z
  .strictObject({
    fieldName: z.string(),
    message: z.string(),
    errorCode: z.enum(errorCodes),
    email: z.string().optional(),
    line: z.int().optional(),
  })
  .register(responseRegistry, { id: 'FieldIssue' });

/** Spec 7: the standard body plus `details` (422; a standard 422 body has no `details`). */
export const validationErrorBodySchema = errorBodySchema
  .extend({ details: z.array(fieldIssueSchema).optional() })
  .meta({ description: 'A 422: the standard error body, with `details` when fields were refused.' }).register(responseRegistry, { id: 'ValidationErrorBody' });

/** RFC 6749 §5.2, as the token endpoint answers. */
export const oauthErrorSchema = z
  .looseObject({
    error: z.string().meta({ description: 'invalid_request, invalid_client, invalid_grant, unsupported_grant_type, …' }),
    error_description: z.string().optional(),
  })
  .meta({ description: 'An OAuth 2.0 error (RFC 6749 §5.2).' }).register(responseRegistry, { id: 'OAuthError' });

/** What API Gateway (and the local gateway) answer when no function does: 413, 429, 500, 503. */
export const gatewayErrorSchema = z
  .strictObject({ message: z.string() })
  .meta({ description: "API Gateway's own error body (no function answered)." }).register(responseRegistry, { id: 'GatewayError' });

export const tokenResponseSchema = z
  .looseObject({
    access_token: z.string().max(800),
    expires_in: z.int(),
    refresh_expires_in: z.int(),
    refresh_token: z.string(),
    token_type: z.string(),
    'not-before-policy': z.int().optional(),
    session_state: z.string().optional(),
    scope: z.string().optional(),
    id_token: z.string().optional(),
  })
  .meta({ description: 'Spec 5: the token response.' }).register(responseRegistry, { id: 'TokenResponse' });

export const tokenRequestSchema = z
  .object({
    grant_type: z.enum(['password', 'refresh_token']),
    client_id: z.string(),
    username: z.string().optional().meta({ description: 'password grant: the e-mail' }),
    password: z.string().optional().meta({ description: 'password grant' }),
    refresh_token: z.string().optional().meta({ description: 'refresh_token grant' }),
    scope: z.string().optional(),
  })
  .register(responseRegistry, { id: 'TokenRequest' });

/** RFC 7009 §2.1. */
export const revocationRequestSchema = z
  .object({
    client_id: z.string(),
    token: z.string(),
    token_type_hint: z.enum(['refresh_token', 'access_token']).optional(),
  })
  .register(responseRegistry, { id: 'RevocationRequest' });

/** Keycloak's logout with a refresh token. */
export const logoutRequestSchema = z
  .object({ client_id: z.string(), refresh_token: z.string() })
  .register(responseRegistry, { id: 'LogoutRequest' });

/** The account page's sign-in form. */
export const accountSignInSchema = z
  .object({ username: z.string().describe('E-mail address'), password: z.string(), kc_locale: z.enum(['en', 'es', 'ja', 'pt']).optional() })
  .register(responseRegistry, { id: 'AccountSignInForm' });

/** The account page's password form: the current password is asked for unless the sign-in just proved it. */
export const accountPasswordSchema = z
  .object({
    csrf: z.string().describe('The token of the page that sent the form'),
    password: z.string().optional().describe('The current password (when changing it)'),
    'password-new': z.string(),
    'password-confirm': z.string(),
  })
  .register(responseRegistry, { id: 'AccountPasswordForm' });

export const accountSignOutSchema = z.object({ csrf: z.string() }).register(responseRegistry, { id: 'AccountSignOutForm' });

/** Keycloak's attack-detection view of one user. */
export const bruteForceStatusSchema = z
  .object({
    disabled: z.boolean().describe('Whether sign-in is locked now'),
    numFailures: z.int().min(0).describe('Consecutive failed password sign-ins'),
    lastFailure: z.int().min(0).describe('When the last one was, in epoch milliseconds (0 if none)'),
    lockedUntil: z.iso.datetime().nullable().describe('When the lock ends, if locked'),
  })
  .register(responseRegistry, { id: 'BruteForceStatus' });

/** OpenID Connect Discovery 1.0 §3, the fields a client needs; the document has more. */
export const discoverySchema = z
  .looseObject({
    issuer: z.url(),
    token_endpoint: z.url(),
    jwks_uri: z.url(),
    userinfo_endpoint: z.url(),
    revocation_endpoint: z.url(),
    end_session_endpoint: z.url(),
    grant_types_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    subject_types_supported: z.array(z.string()),
    id_token_signing_alg_values_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()).optional(),
    claims_supported: z.array(z.string()).optional(),
  })
  .meta({ description: "The realm's OpenID Connect configuration." })
  .register(responseRegistry, { id: 'OpenIdConfiguration' });

/** OpenID Connect Core §5.3.2. */
export const userInfoSchema = z
  .looseObject({ sub: z.string(), name: z.string().optional(), preferred_username: z.string().optional(), email: z.string().optional() })
  .register(responseRegistry, { id: 'UserInfo' });

export const jwksSchema = z
  .looseObject({
    keys: z.array(
      z.looseObject({ kty: z.string(), crv: z.string().optional(), x: z.string().optional(), y: z.string().optional(), kid: z.string(), alg: z.string(), use: z.string() }),
    ),
  })
  .register(responseRegistry, { id: 'JsonWebKeySet' });

const sortSchema = z.strictObject({ unsorted: z.boolean(), sorted: z.boolean(), empty: z.boolean() });

/** Spec 2.8. */
const pageOf = <T extends z.ZodType>(item: T, id: string, description: string) =>
  z
    .strictObject({
      content: z.array(item),
      pageable: z.strictObject({
        unpaged: z.boolean(),
        paged: z.boolean(),
        pageNumber: z.int(),
        pageSize: z.int(),
        offset: z.int(),
        sort: sortSchema,
      }),
      totalElements: z.int(),
      totalPages: z.int(),
      numberOfElements: z.int(),
      size: z.int(),
      number: z.int(),
      first: z.boolean(),
      last: z.boolean(),
      empty: z.boolean(),
      sort: sortSchema,
    })
    .meta({ description })
    .register(responseRegistry, { id });

/** `toUserResponse`: spec 2.9 plus role, permissions and status. */
export const userSchema = z
  .strictObject({
    uuid: z.uuid(),
    orgUUID: z.uuid(),
    name: z.string(),
    email: z.string(),
    image: z.string().nullable(),
    company: z.string().nullable(),
    admin: z.boolean(),
    role: z.enum(roles),
    permissions: z.array(z.strictObject({ environmentUuid: z.uuid(), botUuid: z.uuid().optional() })),
    status: z.enum(['ACTIVE', 'DELETED']),
    createdAt: dateTime,
  })
  .register(responseRegistry, { id: 'User' });

export const userPageSchema = pageOf(userSchema, 'UserPage', 'Page (spec 2.8) of users; `number` is 0-based.');

const tagSchema = z.strictObject({ uuid: z.uuid(), name: z.string() }).register(responseRegistry, { id: 'Tag' });

/** `toAgentSummary`: a listing's item. */
export const agentSummarySchema = z
  .strictObject({
    uuid: z.uuid(),
    role: z.string(),
    goal: z.string(),
    tags: z.array(tagSchema),
    inheritFromSupervisor: z.boolean(),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .register(responseRegistry, { id: 'AgentSummary' });

export const agentPageSchema = pageOf(agentSummarySchema, 'AgentPage', 'Page (spec 2.8) of agents or supervisors; `number` is 1-based.');

const parametersSchema = z
  .strictObject({
    maximumTokens: z.int().optional(),
    requestTimeout: z.int(),
    temperature: z.number(),
    topP: z.number(),
    presencePenalty: z.number(),
    frequencyPenalty: z.number(),
  })
  .register(responseRegistry, { id: 'Parameters' });

/** `toAgentResponse`: spec 2.1, also the shape of supervisors. */
export const agentSchema = z
  .strictObject({
    uuid: z.uuid(),
    role: z.string(),
    flowUUID: z.string(),
    goal: z.string(),
    instructions: z.string().nullable(),
    guardrails: z.string().nullable(),
    persona: z
      .strictObject({
        uuid: z.uuid(),
        name: z.string(),
        image: z.string().nullable(),
        backstory: z.string().nullable(),
        personality: z.string().nullable(),
        communicationStyle: z.enum(communicationStyles),
      })
      .nullable(),
    inheritFromSupervisor: z.boolean(),
    constraints: z.array(z.strictObject({ uuid: z.uuid(), value: z.string() })),
    tags: z.array(tagSchema),
    parameters: parametersSchema.nullable(),
    functions: z.array(z.strictObject({ uuid: z.uuid(), name: z.string() })),
    knowledge: z.array(
      z.strictObject({
        uuid: z.uuid(),
        name: z.string(),
        description: z.string(),
        documentCount: z.int(),
        searchType: z.strictObject({ type: z.string(), semanticWeight: z.int(), fullTextWeight: z.int() }),
        previousUserInput: z.int(),
        threshold: z.number(),
        topK: z.int(),
      }),
    ),
    heirs: z.array(z.strictObject({ role: z.string() })),
  })
  .meta({ description: 'Spec 2.1 (AgentDTO); supervisors are read in this shape.' }).register(responseRegistry, { id: 'Agent' });

/** `toConfigurationResponse`: spec 2.10. */
export const configurationSchema = z
  .strictObject({ id: z.int(), key: z.string(), value: z.string(), botUuid: z.uuid().nullable() })
  .register(responseRegistry, { id: 'ConfigurationEntry' });

/** `ItemError` of bulk delete, grant and revoke. */
export const itemErrorSchema = z
  .strictObject({
    email: z.string(),
    message: z.string(),
    errorCode: z.enum(errorCodes),
    index: z.int().optional().meta({ description: "The item's position in the JSON array (0-based)" }),
    line: z.int().optional().meta({ description: 'The line in the CSV file' }),
  })
  .meta({ description: 'Spec 2.11: an entry of a bulk error list.' }).register(responseRegistry, { id: 'BulkItemError' });

/** `BulkError` of bulk create. */
export const bulkErrorSchema = z
  .strictObject({ email: z.string(), message: z.string(), line: z.int(), errorCode: z.enum(errorCodes) })
  .meta({ description: 'Spec 2.11: an entry of the bulk-create error list.' }).register(responseRegistry, { id: 'BulkCreateError' });

/** `JobView` of the bulk-create job. */
export const bulkJobSchema = z
  .strictObject({
    jobId: z.uuid(),
    status: z.enum(['queued', 'running', 'done', 'failed']),
    dryRun: z.boolean(),
    counts: z.strictObject({ rows: z.int(), created: z.int(), failed: z.int() }),
    progress: z.strictObject({ processed: z.int(), total: z.int(), percent: z.int().min(0).max(100) }),
    createdAt: dateTime,
    updatedAt: dateTime,
    errors: z.array(bulkErrorSchema).optional().meta({ description: 'When done: the bulk error list' }),
    failure: z.strictObject({ errorCode: z.enum(errorCodes), message: z.string() }).optional(),
    welcomeFailures: z.array(z.strictObject({ line: z.int(), userUuid: z.uuid(), reason: z.string() })).optional(),
  })
  .register(responseRegistry, { id: 'BulkJob' });

export const bulkUploadSchema = z
  .strictObject({
    jobId: z.uuid(),
    upload: z.strictObject({ method: z.literal('PUT'), url: z.url(), expiresAt: dateTime }),
    job: z.string().meta({ description: "The job's path, to poll" }),
  })
  .register(responseRegistry, { id: 'BulkUpload' });

/** One RFC 6902 operation, as revision diffs and audit events carry them. */
export const patchOperationSchema = z
  .looseObject({
    op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
    path: z.string(),
    value: z.unknown().optional(),
    from: z.string().optional(),
  })
  .meta({ description: 'An RFC 6902 JSON Patch operation' })
  .register(responseRegistry, { id: 'JsonPatchOperation' });

const actorSchema = z
  .strictObject({ uuid: z.uuid().nullable(), email: z.string().nullable() })
  .meta({ description: 'Who made a change (both null for the operator command line)' })
  .register(responseRegistry, { id: 'Actor' });

/** `toRevisionSummary`: an item of a revision listing. */
export const revisionSummarySchema = z
  .strictObject({ revision: z.int(), createdAt: dateTime, author: actorSchema, action: z.enum(['CREATED', 'UPDATED', 'RESTORED']) })
  .register(responseRegistry, { id: 'RevisionSummary' });

export const revisionPageSchema = pageOf(revisionSummarySchema, 'RevisionPage', 'Page (spec 2.8) of revisions, newest first; `number` is 1-based.');

/** `diffRevisions`: the patch turning revision `from`'s Agent into revision `to`'s (`from` null: from nothing). */
export const revisionDiffSchema = z
  .strictObject({ from: z.int().nullable(), to: z.int(), patch: z.array(patchOperationSchema) })
  .register(responseRegistry, { id: 'RevisionDiff' });

/** `toAuditEventResponse`: one audit event. */
export const auditEventSchema = z
  .strictObject({
    id: z.uuid(),
    at: dateTime,
    actor: actorSchema,
    action: z.enum(auditActions),
    resource: z.strictObject({ type: z.enum(auditResourceTypes), uuid: z.string().describe("The resource's uuid (a job's id; for a configuration entry, its user's uuid)") }),
    requestId: z.string().nullable().describe("The `x-request-id` of the request that made the change (for a bulk job's, the request that created the job)"),
    changes: z
      .array(patchOperationSchema)
      .optional()
      .describe('What changed, as an RFC 6902 patch; a secret that changed appears only as `[REDACTED]`'),
  })
  .register(responseRegistry, { id: 'AuditEvent' });

export const auditEventPageSchema = pageOf(auditEventSchema, 'AuditEventPage', 'Page (spec 2.8) of audit events, newest first; `number` is 0-based.');
