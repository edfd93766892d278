import { bulkApi } from '../../shared/edge/api/bulk.api';
import { bulkSchemas } from '../../shared/app/bulk/bulk.schemas';
import { bulkCreate, createUploadJob, failedRows, jobView, readJob, resendWelcomes, retryJob, type BulkJob } from '../../shared/app/bulk/bulk.service';
import { bulkDelete, bulkGrant, bulkRevoke } from '../../shared/app/bulk/bulk-users.service';
import { createFunction, routes } from '../../shared/edge/http/handler-factory';
import { tokenOperation } from '../../shared/edge/http/token-route';
import { ok } from '../../shared/edge/http/types';
import { languageOf } from '../../shared/edge/http/language-header';
import { locationOf } from '../../shared/edge/http/location';

/** Bulk operations (docs/api/bulk.md): the HTTP side. The work itself is done by `bulk-worker`. */

/** Every bulk operation is an ADMIN's, in the path's organization. */

const jobLocation = (params: { orgUUID: string; jobId: string }) => locationOf(bulkApi.job, params);

/** A job queued again: 202, the job and where to poll it, as a new upload answers. */
const requeued = async (path: { orgUUID: string; jobId: string }, job: Promise<BulkJob>) => ({
  status: 202 as const,
  body: await jobView(await job),
  headers: { location: jobLocation(path) },
});

export const handlers = routes(
  // The job's error list when it finished in time; else 202 and the job, to poll at its Location.
  tokenOperation(bulkApi.create, {
    idempotent: true,
    handle: async ({ path, query, body, headers, scope }) => {
      const respondAsync = bulkSchemas().respondAsyncSchema.parse(headers.prefer);
      const job = await bulkCreate(scope, body.file, { language: languageOf(headers), dryRun: query.dryRun, wait: !respondAsync });
      const location = jobLocation({ orgUUID: path.orgUUID, jobId: job.jobId });
      if (job.status === 'done') return ok(job.errors ?? [], { location });
      return { status: 202, body: job, headers: { location, ...(respondAsync ? { 'preference-applied': 'respond-async' } : {}) } };
    },
  }),
  // A job whose file the client uploads itself with the returned form (a presigned POST); the upload starts it.
  tokenOperation(bulkApi.upload, {
    handle: async ({ path, query, headers, scope }) => {
      const { job, upload } = await createUploadJob(scope, { language: languageOf(headers), dryRun: query.dryRun });
      const location = jobLocation({ orgUUID: path.orgUUID, jobId: job.jobId });
      // The form's signed policy is a credential for the next 15 minutes: no cache keeps it.
      const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
      return { status: 201, headers: { location, ...noStore }, body: { jobId: job.jobId, upload: { method: 'POST', ...upload }, job: location } };
    },
  }),
  tokenOperation(bulkApi.job, { handle: async ({ path, scope }) => ok(await jobView(await readJob(scope, path.jobId))) }),
  tokenOperation(bulkApi.failedRows, {
    handle: async ({ path, scope }) => ({
      status: 200,
      contentType: 'text/csv; charset=utf-8',
      body: await failedRows(scope, path.jobId),
      headers: { 'content-disposition': `attachment; filename="failed-rows-${path.jobId}.csv"` },
    }),
  }),
  // A job whose worker failed, run again from its upload.
  tokenOperation(bulkApi.retry, { handle: ({ path, scope }) => requeued(path, retryJob(scope, path.jobId)) }),
  // The welcome e-mails SES did not accept, sent again by the worker.
  tokenOperation(bulkApi.welcomes, { handle: ({ path, scope }) => requeued(path, resendWelcomes(scope, path.jobId)) }),
  tokenOperation(bulkApi.delete, { handle: async ({ query, body, scope }) => ok(await bulkDelete(scope, body, query.dryRun)) }),
  tokenOperation(bulkApi.grant, { handle: async ({ query, body, scope }) => ok(await bulkGrant(scope, body.file, query.dryRun)) }),
  tokenOperation(bulkApi.revoke, { handle: async ({ query, body, scope }) => ok(await bulkRevoke(scope, body, query.dryRun)) }),
);

export const handler = createFunction('bulk', handlers);
