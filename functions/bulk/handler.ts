import * as z from 'zod';
import { PayloadTooLargeError, UnprocessableError, ValidationError, type ErrorCode } from '../../shared/errors';
import { awaitJob, createUploadJob, failedRows, jobView, MULTIPART_MAX_BYTES, readJob, retryJob, submitBulkCreate } from '../../shared/bulk/bulk.service';
import { bulkDelete, bulkGrant, bulkPermissionLimits, bulkRevoke } from '../../shared/bulk/bulk-users.service';
import { CsvFileError } from '../../shared/bulk/csv-file';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { uuidSchema } from '../../shared/http/schemas';
import { ok, type Reply } from '../../shared/http/types';
import { languageOf } from '../../shared/mail/language-header';
import { subpathsFromEnv } from '../../shared/config';

/** Bulk operations (spec 4.5): the HTTP side. The work itself is done by `bulk-worker`. */

/** How long `POST /users/bulk-create` waits for the worker before answering 202 (API Gateway allows 30 s). */
const SYNC_WAIT_MS = 25_000;

const orgPath = z.object({ orgUUID: uuidSchema });
const jobPath = z.object({ orgUUID: uuidSchema, jobId: uuidSchema });
const dryRunQuery = z.object({
  dryRun: z
    .enum(['true', 'false'], { message: 'Must be true or false' })
    .optional()
    .transform((value) => value === 'true'),
});
const filePart = z.object(
  {
    file: z.object(
      { content: z.instanceof(Buffer), truncated: z.boolean().optional().default(false) },
      { message: 'Must be one file part' },
    ),
  },
  { message: 'Must be a multipart form with a file part' },
);

const jobLocation = (orgUuid: string, jobId: string) => `/${subpathsFromEnv().user}/org/${orgUuid}/users/bulk-jobs/${jobId}`;

export const create = userRoute({
  multipart: { maxFileBytes: MULTIPART_MAX_BYTES },
  schemas: { path: orgPath, query: dryRunQuery, body: filePart },
  handle: async ({ path, query, body, headers, caller }): Promise<Reply> => {
    const language = languageOf(headers);
    const job = await submitBulkCreate(caller, path.orgUUID, body.file, { language, dryRun: query.dryRun });
    const location = jobLocation(path.orgUUID, job.jobId);
    const async = /(^|[\s,;])respond-async($|[\s,;])/i.test(headers.prefer ?? '');
    const seen = async ? job : await awaitJob(path.orgUUID, job.jobId, Date.now() + SYNC_WAIT_MS);
    // A worker failure is not the file's: the client sees the job (failed, retryable) as when it is not done.
    if (seen.status === 'failed' && seen.failure && !seen.failure.retryable) {
      const { errorCode, message, status } = seen.failure;
      throw status === 413 ? new PayloadTooLargeError(message) : new UnprocessableError(errorCode as ErrorCode, message);
    }
    if (seen.status !== 'done') {
      return {
        status: 202,
        body: await jobView(seen),
        headers: { location, ...(async ? { 'preference-applied': 'respond-async' } : {}) },
      };
    }
    const view = await jobView(seen);
    const errors = view.errors ?? [];
    if (seen.counts.created === 0) {
      throw new ValidationError(
        errors.map((error) => ({ fieldName: error.email, ...error })),
        'No user of the file could be created',
        'NO_USER_CREATED',
      );
    }
    return ok(errors, { location });
  },
});

/** A job whose file the client PUTs to the returned URL itself; the upload starts it. */
export const upload = userRoute({
  schemas: { path: orgPath, query: dryRunQuery },
  handle: async ({ path, query, headers, caller }) => {
    const { job, url, expiresAt } = await createUploadJob(caller, path.orgUUID, { language: languageOf(headers), dryRun: query.dryRun });
    const location = jobLocation(path.orgUUID, job.jobId);
    return {
      status: 201,
      headers: { location },
      body: { jobId: job.jobId, upload: { method: 'PUT', url, expiresAt }, job: location },
    };
  },
});

export const job = userRoute({
  schemas: { path: jobPath },
  handle: async ({ path, caller }) => ok(await jobView(await readJob(caller, path.orgUUID, path.jobId))),
});

/** A job whose worker failed, run again from its upload: 202 and the job, as a new upload answers. */
export const retry = userRoute({
  schemas: { path: jobPath },
  handle: async ({ path, caller }): Promise<Reply> => ({
    status: 202,
    body: await jobView(await retryJob(caller, path.orgUUID, path.jobId)),
    headers: { location: jobLocation(path.orgUUID, path.jobId) },
  }),
});

export const failedRowsOf = userRoute({
  schemas: { path: jobPath },
  handle: async ({ path, caller }) => ({
    status: 200,
    contentType: 'text/csv; charset=utf-8',
    body: await failedRows(caller, path.orgUUID, path.jobId),
    headers: { 'content-disposition': `attachment; filename="failed-rows-${path.jobId}.csv"` },
  }),
});

const emailList = z
  .array(z.string().trim().min(1, { message: 'Must not be blank' }).max(254, { message: 'Must be at most 254 characters' }), {
    message: 'Must be a JSON array of e-mails',
  })
  .min(1, { message: 'Must list at least one e-mail' })
  .max(1000, { message: 'Must list at most 1000 e-mails' });

export const bulkDeleteRoute = userRoute({
  schemas: { path: orgPath, query: dryRunQuery, body: emailList },
  handle: async ({ path, query, body, caller }) => ok(await bulkDelete(caller, path.orgUUID, body, query.dryRun)),
});

export const grant = userRoute({
  multipart: { maxFileBytes: bulkPermissionLimits.maxBytes },
  schemas: { path: orgPath, query: dryRunQuery, body: filePart },
  handle: async ({ path, query, body, caller }) => {
    if (body.file.truncated) throw new PayloadTooLargeError(`The file is larger than ${bulkPermissionLimits.maxBytes} bytes`);
    return ok(await fileErrors(() => bulkGrant(caller, path.orgUUID, body.file.content, query.dryRun)));
  },
});

const revocations = z
  .array(
    z.strictObject({
      email: z.string().trim().min(1, { message: 'Must not be blank' }).max(254, { message: 'Must be at most 254 characters' }),
      environmentUuid: uuidSchema.optional(),
      bot: uuidSchema.optional(),
    }),
    { message: 'Must be a JSON array of { email, environmentUuid?, bot? }' },
  )
  .min(1, { message: 'Must list at least one item' })
  .max(1000, { message: 'Must list at most 1000 items' })
  .superRefine((items, context) => {
    items.forEach((item, i) => {
      if (item.bot && !item.environmentUuid) {
        context.addIssue({ code: 'custom', path: [i, 'environmentUuid'], message: 'Required with bot' });
      }
    });
  });

export const revoke = userRoute({
  schemas: { path: orgPath, query: dryRunQuery, body: revocations },
  handle: async ({ path, query, body, caller }) => ok(await bulkRevoke(caller, path.orgUUID, body, query.dryRun)),
});

/** A file that cannot be read at all is refused whole: 422 (413 for size) with its problem's code. */
async function fileErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof CsvFileError)) throw error;
    throw error.problem === 'FILE_TOO_LARGE' ? new PayloadTooLargeError(error.message) : new UnprocessableError(error.problem, error.message);
  }
}

export const handlers = {
  'bulk.create': create,
  'bulk.upload': upload,
  'bulk.job': job,
  'bulk.failedRows': failedRowsOf,
  'bulk.retry': retry,
  'bulk.delete': bulkDeleteRoute,
  'bulk.grant': grant,
  'bulk.revoke': revoke,
};
export const handler = createFunction('bulk', handlers);
