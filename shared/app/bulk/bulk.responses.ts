import * as z from 'zod';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { dateTime, errorCodes } from '../../kernel/schemas/responses';

/** What the bulk operations answer (their error lists and the jobs behind bulk-create: docs/api/bulk.md). */

/** An entry of the error lists of bulk delete, grant and revoke. */
export const itemErrorSchema = z
  .strictObject({
    email: z.string(),
    message: z.string(),
    errorCode: z.enum(errorCodes),
    index: z.int().optional().meta({ description: "The item's position in the JSON array (0-based)" }),
    line: z.int().optional().meta({ description: 'The line in the CSV file' }),
  })
  .meta({ description: 'An entry of a bulk error list (docs/api/bulk.md#errors-of-a-bulk-create).' })
  .register(schemaRegistry, { id: 'BulkItemError' });

/** An entry of the bulk-create error list. */
export const bulkErrorSchema = z
  .strictObject({ email: z.string(), message: z.string(), line: z.int(), errorCode: z.enum(errorCodes) })
  .meta({ description: 'An entry of the bulk-create error list (docs/api/bulk.md#errors-of-a-bulk-create).' })
  .register(schemaRegistry, { id: 'BulkCreateError' });

/** A bulk-create job as it is polled. */
export const bulkJobSchema = z
  .strictObject({
    jobId: z.uuid(),
    status: z.enum(['queued', 'running', 'done', 'failed']),
    dryRun: z.boolean(),
    counts: z
      .strictObject({ rows: z.int(), created: z.int(), failed: z.int() })
      .meta({ description: 'Rows read, users created and users failed so far: they grow while the job runs' }),
    welcomes: z.strictObject({ sent: z.int(), pending: z.int(), failed: z.int() }).meta({
      description:
        "The created users' welcome e-mails: accepted by SES, waiting in the mail queue for their turn at SES's send rate, refused. They go on after the job is done, until none is pending",
    }),
    progress: z.strictObject({ processed: z.int(), total: z.int(), percent: z.int().min(0).max(100) }),
    createdAt: dateTime,
    updatedAt: dateTime,
    errors: z.array(bulkErrorSchema).optional().meta({ description: 'When done: the bulk error list' }),
    failure: z.strictObject({ errorCode: z.enum(errorCodes), message: z.string() }).optional(),
    welcomeFailures: z.array(z.strictObject({ line: z.int(), userUuid: z.uuid(), reason: z.string() })).optional(),
  })
  .register(schemaRegistry, { id: 'BulkJob' });

export const bulkUploadSchema = z
  .strictObject({
    jobId: z.uuid(),
    upload: z
      .strictObject({
        method: z.literal('POST'),
        url: z.url().meta({ description: 'Where to send the form' }),
        fields: z
          .record(z.string(), z.string())
          .meta({ description: 'The form fields to send as they are, each a part of a multipart/form-data body, before the part `file` with the CSV' }),
        maxBytes: z.int().meta({ description: 'The largest file S3 takes through this form: a larger one is refused with 400 EntityTooLarge' }),
        expiresAt: dateTime,
      })
      .meta({ description: 'A presigned POST to the bulk bucket; the signed policy bounds the file to maxBytes' }),
    job: z.string().meta({ description: "The job's path, to poll" }),
  })
  .register(schemaRegistry, { id: 'BulkUpload' });
