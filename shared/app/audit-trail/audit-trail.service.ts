import type { OrgScope } from '../../domain/users/org-scope';
import type { AuditEvent } from '../../domain/audit/audit-event';
import { findAuditEvents, type AuditFilter, type AuditPosition } from '../../domain/audit/audit-trail.repository';

export type { AuditPosition };

/**
 * The organization's audit events, newest first: page `page` (0-based) of `linesPerPage`, or the
 * page starting at a page token's position (`start`, the token's page number and position), how many
 * `filter` selects in all, and where the next page starts. The handler authorizes the scope: ADMIN's only.
 *
 * Counting the total reads the keys of the whole time range; after a position only those that follow
 * it (the events before were counted by the pages before): never more than the first page reads.
 */
export async function listAuditEvents(
  scope: OrgScope,
  query: AuditFilter & { page: number; linesPerPage: number; pageToken?: string },
  start?: { number: number; after: AuditPosition },
): Promise<{ events: AuditEvent[]; total: number; number: number; next?: AuditPosition }> {
  const { page, linesPerPage, ...filter } = query;
  const number = start?.number ?? page;
  const offset = start ? 0 : page * linesPerPage;
  const found = await findAuditEvents(scope.orgUuid, filter, offset, linesPerPage, start ? { after: start.after } : {});
  return { events: found.events, total: found.remaining + (start ? number * linesPerPage : 0), number, ...(found.next ? { next: found.next } : {}) };
}
