import * as z from 'zod/mini';
import { auditActions, auditResourceTypes } from '../../domain/audit/audit-kinds';
import { lazy } from '../../kernel/lazy';
import { schemaRegistry } from '../../kernel/schemas/registry';
import { pageSchemaOf, sharedResponses } from '../../kernel/schemas/responses';

/** What the audit trail answers, made on first call (by the API description), never as a function loads. */
export const auditTrailResponses = lazy(() => {
  const { actorSchema, dateTime, patchOperationSchema } = sharedResponses();

  /** One audit event as the API answers it: only these fields leave (never the item's keys, ttl or filter attributes). */
  const auditEventSchema = z
    .strictObject({
      id: z.uuid(),
      at: dateTime,
      actor: actorSchema,
      action: z.enum(auditActions),
      resource: z.strictObject({
        type: z.enum(auditResourceTypes),
        uuid: z.string().check(z.describe("The resource's uuid (a job's id; for a configuration entry, its user's uuid)")),
      }),
      requestId: z
        .nullable(z.string())
        .check(z.describe("The `x-request-id` of the request that made the change (for a bulk job's, the request that created the job)")),
      changes: z
        .optional(z.array(patchOperationSchema))
        .check(z.describe('What changed, as an RFC 6902 patch; a secret that changed appears only as `[REDACTED]`')),
    })
    .register(schemaRegistry, { id: 'AuditEvent' });

  const auditEventPageSchema = pageSchemaOf(auditEventSchema, 'AuditEventPage', 'Page of audit events, newest first; `number` is 0-based.');

  return { auditEventSchema, auditEventPageSchema };
});
export type AuditEventResponse = z.output<ReturnType<typeof auditTrailResponses>['auditEventSchema']>;
