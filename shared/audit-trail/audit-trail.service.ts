import type { OrgScope } from '../users/org-scope';
import type { AuditEvent } from '../audit/audit-event';
import { findAuditEvents, type AuditFilter } from './audit-trail.repository';

/**
 * The organization's audit events, newest first: page `page` (0-based) of `linesPerPage`,
 * and how many `filter` selects in all. The handler authorizes the scope: ADMIN's only.
 */
export async function listAuditEvents(
  scope: OrgScope,
  query: AuditFilter & { page: number; linesPerPage: number },
): Promise<{ events: AuditEvent[]; total: number }> {
  const { page, linesPerPage, ...filter } = query;
  return findAuditEvents(scope.orgUuid, filter, page * linesPerPage, linesPerPage);
}
