import * as z from 'zod/mini';
import { bulkSchemas } from '../../app/bulk/bulk.schemas';
import { bulkResponses } from '../../app/bulk/bulk.responses';
import {
  bulkCreateDescription,
  bulkDeleteDescription,
  bulkGrantDescription,
  bulkRevokeDescription,
  bulkUploadDescription,
} from './bulk-descriptions';
import { bulkCreateExampleFile, bulkPermissionsExampleFile, environment, otherBot } from './examples';
import { operationsUnder, type Outcome } from './operation';
import { MULTIPART_MAX_BYTES, bulkPermissionLimits } from '../../app/bulk/bulk.limits';

/** Bulk operations on users (docs/api/bulk.md): the HTTP side; the `bulk-worker` function does the work. ADMIN only. */
const bulk = operationsUnder('bulk', 'user', '/org/{orgUUID}', { access: { org: 'admin', because: 'Only an ADMIN runs bulk operations' } });

const jobAccepted = { status: 202 as const, description: 'The job, queued; poll it at Location', json: () => bulkResponses().bulkJobSchema, headers: ['Location'] } satisfies Outcome;
const itemErrors = { status: 200 as const, description: 'The bulk error list: one entry per item not processed', json: () => z.array(bulkResponses().itemErrorSchema) } satisfies Outcome;

export const bulkApi = {
  create: bulk({
    id: 'bulk.create',
    method: 'POST',
    path: '/users/bulk-create',
    request: {
      path: () => bulkSchemas().orgPathSchema,
      query: () => bulkSchemas().dryRunQuerySchema,
      body: () => bulkSchemas().filePartSchema,
      multipart: { maxFileBytes: MULTIPART_MAX_BYTES },
      headers: ['Language', 'Prefer', 'IdempotencyKey'],
    },
    summary: 'Create users from a CSV file',
    description: bulkCreateDescription,
    errors: { extra: [413] },
    responses: [
      { status: 200, description: 'The bulk error list', json: () => z.array(bulkResponses().bulkErrorSchema), headers: ['Location', 'Idempotent-Replayed'] },
      { ...jobAccepted, headers: ['Location', 'Preference-Applied', 'Idempotent-Replayed'] },
    ],
    example: { file: bulkCreateExampleFile },
  }),
  upload: bulk({
    id: 'bulk.upload',
    method: 'POST',
    path: '/users/bulk-uploads',
    request: { path: () => bulkSchemas().orgPathSchema, query: () => bulkSchemas().dryRunQuerySchema, headers: ['Language'] },
    summary: 'Start a bulk-create job whose file is uploaded with a presigned POST',
    description: bulkUploadDescription,
    responses: [{ status: 201, description: 'The job and the form to upload the file with (a credential until it expires: Cache-Control no-store)', json: () => bulkResponses().bulkUploadSchema, headers: ['Location', 'Cache-Control', 'Pragma'] }],
  }),
  job: bulk({
    id: 'bulk.job',
    method: 'GET',
    path: '/users/bulk-jobs/{jobId}',
    request: { path: () => bulkSchemas().jobPathSchema },
    summary: 'Read a bulk-create job',
    responses: [{ status: 200, description: 'The job', json: () => bulkResponses().bulkJobSchema }],
  }),
  failedRows: bulk({
    id: 'bulk.failedRows',
    method: 'GET',
    path: '/users/bulk-jobs/{jobId}/failed-rows',
    request: { path: () => bulkSchemas().jobPathSchema },
    summary: "The job's failed rows as CSV",
    responses: [
      {
        status: 200,
        description: 'The rows not processed, with the header row and an error column',
        text: { mediaType: 'text/csv', description: 'CSV' },
        headers: ['Content-Disposition'],
      },
    ],
  }),
  retry: bulk({
    id: 'bulk.retry',
    method: 'POST',
    path: '/users/bulk-jobs/{jobId}/retry',
    request: { path: () => bulkSchemas().jobPathSchema },
    summary: 'Run a failed job again',
    responses: [jobAccepted],
  }),
  welcomes: bulk({
    id: 'bulk.welcomes',
    method: 'POST',
    path: '/users/bulk-jobs/{jobId}/welcomes',
    request: { path: () => bulkSchemas().jobPathSchema },
    summary: 'Send again the welcome e-mails SES did not accept',
    responses: [jobAccepted],
  }),
  delete: bulk({
    id: 'bulk.delete',
    method: 'DELETE',
    path: '/users/bulk-delete',
    request: { path: () => bulkSchemas().orgPathSchema, query: () => bulkSchemas().dryRunQuerySchema, body: () => bulkSchemas().bulkDeleteBodySchema },
    summary: 'Delete users by e-mail',
    description: bulkDeleteDescription,
    responses: [itemErrors],
    example: ['alan@example.com', 'grace@example.com'],
  }),
  grant: bulk({
    id: 'bulk.grant',
    method: 'POST',
    path: '/users/bulk-permissions',
    request: { path: () => bulkSchemas().orgPathSchema, query: () => bulkSchemas().dryRunQuerySchema, body: () => bulkSchemas().filePartSchema, multipart: { maxFileBytes: bulkPermissionLimits.maxBytes } },
    summary: 'Grant permissions from a CSV file',
    description: bulkGrantDescription,
    errors: { extra: [413] },
    responses: [itemErrors],
    example: { file: bulkPermissionsExampleFile },
  }),
  revoke: bulk({
    id: 'bulk.revoke',
    method: 'DELETE',
    path: '/users/bulk-permissions',
    request: { path: () => bulkSchemas().orgPathSchema, query: () => bulkSchemas().dryRunQuerySchema, body: () => bulkSchemas().revocationsBodySchema },
    summary: 'Revoke permissions',
    description: bulkRevokeDescription,
    responses: [itemErrors],
    example: [
      { email: 'alan@example.com', environmentUuid: environment, bot: otherBot },
      { email: 'grace@example.com', environmentUuid: environment },
      { email: 'ada@example.com' },
    ],
  }),
};
