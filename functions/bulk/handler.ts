import { authorizeOrgAdmin } from '../../shared/access/org-access';
import type { Caller } from '../../shared/auth/caller';
import {
  BULK_ADMIN_ONLY,
  bulkCreate,
  createUploadJob,
  failedRows,
  jobView,
  MULTIPART_MAX_BYTES,
  readJob,
  resendWelcomes,
  retryJob,
} from '../../shared/bulk/bulk.service';
import type { BulkJob } from '../../shared/bulk/bulk-job';
import {
  bulkDeleteBodySchema,
  dryRunQuerySchema,
  filePartSchema,
  jobPathSchema,
  orgPathSchema,
  respondAsyncSchema,
  revocationsBodySchema,
} from '../../shared/bulk/bulk.schemas';
import { bulkDelete, bulkGrant, bulkPermissionLimits, bulkRevoke } from '../../shared/bulk/bulk-users.service';
import { subpathsFromEnv } from '../../shared/config';
import { createFunction, userRoute } from '../../shared/http/handler-factory';
import { ok, type Reply } from '../../shared/http/types';
import { languageOf } from '../../shared/mail/language-header';
import { routePath } from '../../shared/api/routes';

/** Bulk operations (spec 4.5): the HTTP side. The work itself is done by `bulk-worker`. */

/** Every bulk operation is an ADMIN's, in the path's organization. */
const authorize = ({ path, caller }: { path: { orgUUID: string }; caller: Caller }) => authorizeOrgAdmin(caller, path.orgUUID, BULK_ADMIN_ONLY);

const jobLocation = (params: { orgUUID: string; jobId: string }) => routePath('bulk.job', params, subpathsFromEnv());

/** The job's error list when it finished in time; else 202 and the job, to poll at its Location. */
export const create = userRoute({
  multipart: { maxFileBytes: MULTIPART_MAX_BYTES },
  schemas: { path: orgPathSchema, query: dryRunQuerySchema, body: filePartSchema },
  authorize,
  idempotent: true,
  handle: async ({ path, query, body, headers, scope }): Promise<Reply> => {
    const respondAsync = respondAsyncSchema.parse(headers.prefer);
    const options = { language: languageOf(headers), dryRun: query.dryRun, wait: !respondAsync };
    const job = await bulkCreate(scope, body.file, options);
    const location = jobLocation({ orgUUID: path.orgUUID, jobId: job.jobId });
    if (job.status === 'done') return ok(job.errors ?? [], { location });
    return { status: 202, body: job, headers: { location, ...(respondAsync ? { 'preference-applied': 'respond-async' } : {}) } };
  },
});

/** A job whose file the client PUTs to the returned URL itself; the upload starts it. */
export const upload = userRoute({
  schemas: { path: orgPathSchema, query: dryRunQuerySchema },
  authorize,
  handle: async ({ path, query, headers, scope }) => {
    const { job, url, expiresAt } = await createUploadJob(scope, { language: languageOf(headers), dryRun: query.dryRun });
    const location = jobLocation({ orgUUID: path.orgUUID, jobId: job.jobId });
    return { status: 201, headers: { location }, body: { jobId: job.jobId, upload: { method: 'PUT', url, expiresAt }, job: location } };
  },
});

export const job = userRoute({
  schemas: { path: jobPathSchema },
  authorize,
  handle: async ({ path, scope }) => ok(await jobView(await readJob(scope, path.jobId))),
});

/** A job queued again: 202, the job and where to poll it, as a new upload answers. */
const requeued = async (path: { orgUUID: string; jobId: string }, job: Promise<BulkJob>): Promise<Reply> => ({
  status: 202,
  body: await jobView(await job),
  headers: { location: jobLocation(path) },
});

/** A job whose worker failed, run again from its upload. */
export const retry = userRoute({
  schemas: { path: jobPathSchema },
  authorize,
  handle: ({ path, scope }) => requeued(path, retryJob(scope, path.jobId)),
});

/** The welcome e-mails SES did not accept, sent again by the worker. */
export const welcomes = userRoute({
  schemas: { path: jobPathSchema },
  authorize,
  handle: ({ path, scope }) => requeued(path, resendWelcomes(scope, path.jobId)),
});

export const failedRowsOf = userRoute({
  schemas: { path: jobPathSchema },
  authorize,
  handle: async ({ path, scope }) => ({
    status: 200,
    contentType: 'text/csv; charset=utf-8',
    body: await failedRows(scope, path.jobId),
    headers: { 'content-disposition': `attachment; filename="failed-rows-${path.jobId}.csv"` },
  }),
});

export const bulkDeleteRoute = userRoute({
  schemas: { path: orgPathSchema, query: dryRunQuerySchema, body: bulkDeleteBodySchema },
  authorize,
  handle: async ({ query, body, scope }) => ok(await bulkDelete(scope, body, query.dryRun)),
});

export const grant = userRoute({
  multipart: { maxFileBytes: bulkPermissionLimits.maxBytes },
  schemas: { path: orgPathSchema, query: dryRunQuerySchema, body: filePartSchema },
  authorize,
  handle: async ({ query, body, scope }) => ok(await bulkGrant(scope, body.file, query.dryRun)),
});

export const revoke = userRoute({
  schemas: { path: orgPathSchema, query: dryRunQuerySchema, body: revocationsBodySchema },
  authorize,
  handle: async ({ query, body, scope }) => ok(await bulkRevoke(scope, body, query.dryRun)),
});

export const handlers = {
  'bulk.create': create,
  'bulk.upload': upload,
  'bulk.job': job,
  'bulk.failedRows': failedRowsOf,
  'bulk.retry': retry,
  'bulk.welcomes': welcomes,
  'bulk.delete': bulkDeleteRoute,
  'bulk.grant': grant,
  'bulk.revoke': revoke,
};
export const handler = createFunction('bulk', handlers);
