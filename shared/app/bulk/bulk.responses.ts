import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { errorCodes, sharedResponses } from '../../kernel/schemas/responses';

/**
 * What the bulk operations answer (their error lists and the jobs behind bulk-create: docs/api/bulk.md).
 * Made on first call (by the API description), never as a function loads.
 */
export const bulkResponses = lazy(() => {
  const { dateTime } = sharedResponses();

  /** An entry of the error lists of bulk delete, grant and revoke. */
  const itemErrorSchema = z
    .strictObject({
      email: z.string(),
      message: z.string(),
      errorCode: z.enum(errorCodes),
      index: z.optional(z.int()).check(z.meta({ description: "The item's position in the JSON array (0-based)" })),
      line: z.optional(z.int()).check(z.meta({ description: 'The line in the CSV file' })),
    })
    .check(z.meta({ description: 'An entry of a bulk error list (docs/api/bulk.md#errors-of-a-bulk-create).' }))
    .register(schemaRegistry, { id: 'BulkItemError' });

  /** An entry of the bulk-create error list. */
  const bulkErrorSchema = z
    .strictObject({ email: z.string(), message: z.string(), line: z.int(), errorCode: z.enum(errorCodes) })
    .check(z.meta({ description: 'An entry of the bulk-create error list (docs/api/bulk.md#errors-of-a-bulk-create).' }))
    .register(schemaRegistry, { id: 'BulkCreateError' });

  /** A bulk-create job as it is polled. */
  const bulkJobSchema = z
    .strictObject({
      jobId: z.uuid(),
      status: z.enum(['queued', 'running', 'done', 'failed']),
      dryRun: z.boolean(),
      counts: z
        .strictObject({ rows: z.int(), created: z.int(), failed: z.int() })
        .check(z.meta({ description: 'Rows read, users created and users failed so far: they grow while the job runs' })),
      welcomes: z.strictObject({ sent: z.int(), pending: z.int(), failed: z.int() }).check(
        z.meta({
          description:
            "The created users' welcome e-mails: accepted by SES, waiting in the mail queue for their turn at SES's send rate, refused. They go on after the job is done, until none is pending",
        }),
      ),
      progress: z.strictObject({ processed: z.int(), total: z.int(), percent: z.int().check(z.gte(0), z.lte(100)) }),
      createdAt: dateTime,
      updatedAt: dateTime,
      errors: z.optional(z.array(bulkErrorSchema)).check(z.meta({ description: 'When done: the bulk error list' })),
      failure: z.optional(z.strictObject({ errorCode: z.enum(errorCodes), message: z.string() })),
      welcomeFailures: z.optional(z.array(z.strictObject({ line: z.int(), userUuid: z.uuid(), reason: z.string() }))),
    })
    .register(schemaRegistry, { id: 'BulkJob' });

  const bulkUploadSchema = z
    .strictObject({
      jobId: z.uuid(),
      upload: z
        .strictObject({
          method: z.literal('POST'),
          url: z.url().check(z.meta({ description: 'Where to send the form' })),
          fields: z
            .record(z.string(), z.string())
            .check(
              z.meta({ description: 'The form fields to send as they are, each a part of a multipart/form-data body, before the part `file` with the CSV' }),
            ),
          maxBytes: z.int().check(z.meta({ description: 'The largest file S3 takes through this form: a larger one is refused with 400 EntityTooLarge' })),
          expiresAt: dateTime,
        })
        .check(z.meta({ description: 'A presigned POST to the bulk bucket; the signed policy bounds the file to maxBytes' })),
      job: z.string().check(z.meta({ description: "The job's path, to poll" })),
    })
    .register(schemaRegistry, { id: 'BulkUpload' });

  return { itemErrorSchema, bulkErrorSchema, bulkJobSchema, bulkUploadSchema };
});
