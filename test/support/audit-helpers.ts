/** An audit event as `GET …/audit-events` answers it, for the tests that read them. */
export interface AuditEventDto {
  id: string;
  at: string;
  actor: { uuid: string | null; email: string | null };
  action: string;
  resource: { type: string; uuid: string };
  requestId: string | null;
  changes?: { op: string; path: string; value?: unknown }[];
}
