import * as z from 'zod/mini';
import { lazy } from '../../kernel/lazy';
import { fieldSchemas, queryInt } from '../../kernel/schemas/fields';
import { auditResourceTypes } from '../../domain/audit/audit-kinds';

/** The audit trail's request schemas, made on first call (when a route's chain or the API description is built), never as a function loads. */
export const auditTrailSchemas = lazy(() => {
  const { uuidSchema, queryPageToken } = fieldSchemas();

  /** A date-time with an offset, read as the instant it names (stored events are dated in UTC, ms). */
  const instant = z.optional(
    z.pipe(
      z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date-time, e.g. 2026-11-23T10:00:00Z' }),
      z.transform((value) => new Date(value).toISOString()),
    ),
  );

  /**
   * `GET …/audit-events`: the users listing's paging (0-based `page`, `linesPerPage` 1 to 100, default
   * 5) and optional filters, all combined with AND; `from` and `to` are inclusive and `from` ≤ `to`.
   */
  const auditEventsQuerySchema = z
    .object({
      page: queryInt(0, 1_000_000, 0),
      pageToken: queryPageToken,
      linesPerPage: queryInt(1, 100, 5),
      actor: z.optional(uuidSchema),
      resourceType: z.optional(z.enum(auditResourceTypes, { message: `Must be one of ${auditResourceTypes.join(', ')}` })),
      resourceUuid: z.optional(uuidSchema),
      from: instant,
      to: instant,
    })
    .check(
      z.superRefine((query, context) => {
        if (query.from && query.to && query.from > query.to) context.addIssue({ code: 'custom', path: ['from'], message: 'Must not be after to' });
      }),
    );

  return { auditEventsQuerySchema };
});

export type AuditEventsQuery = z.infer<ReturnType<typeof auditTrailSchemas>['auditEventsQuerySchema']>;
