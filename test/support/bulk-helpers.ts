import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BulkError } from '../../shared/app/bulk/bulk-create.rules';
import { saveUpload } from '../../shared/domain/bulk/bulk-file.repository';
import { createJob, type BulkJob } from '../../shared/domain/bulk/bulk-job.repository';
import type { JobView } from '../../shared/app/bulk/bulk.service';
import { messagesOf } from '../../shared/kernel/messages/messages-of';
import type { Language } from '../../shared/adapters/mail/mail.templates';
import { getEmailClaim } from '../../shared/domain/users/user-email-claims.repository';
import type { StandardErrorBody } from './error-body';
import { answer, stackApiClient } from './api-client';
import type { operations } from '../../clients/typescript/src/generated/api-types';
import { send, type ApiResponse } from './http-client';
import { jobUserUuid } from '../../shared/app/bulk/bulk-create.worker';
import { identityOf, listAllUsers, mailsTo, type ReceivedMail, type TestOrg } from './user-helpers';

/** Helpers for the bulk operations: CSV files, the multipart upload, the job resource, staged jobs. */

/** The bulk-create columns in the spec's order. */
export const BULK_COLUMNS = ['Email', 'Name', 'Company', 'Password', 'Role', 'EnvironmentUuid', 'EnvironmentName', 'Bot'] as const;
export type BulkColumn = (typeof BULK_COLUMNS)[number];
export type BulkRow = Partial<Record<BulkColumn, string>>;

/** A CSV field as a careful writer quotes it (no neutralisation: the test decides what the file holds). */
export const quoteField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** A CSV file from rows; a column a row leaves out is an empty field. */
export function csvOf(rows: Partial<Record<string, string>>[], options: { columns?: readonly string[]; eol?: string } = {}): string {
  const columns = options.columns ?? BULK_COLUMNS;
  const eol = options.eol ?? '\r\n';
  const lines = [columns.map(quoteField).join(','), ...rows.map((row) => columns.map((c) => quoteField(row[c] ?? '')).join(','))];
  return `${lines.join(eol)}${eol}`;
}

/** Valid rows of a test organization for each role (env A / bot A1 unless overridden). */
export function rowFor(org: TestOrg, role: string, email: string, overrides: BulkRow = {}): BulkRow {
  const base: BulkRow = { Email: email, Name: `${role} ${email.split('@')[0]}`, Role: role };
  if (role === 'SUPERVISOR') Object.assign(base, { EnvironmentUuid: org.envA, EnvironmentName: 'Env A' });
  if (role === 'VIEWER' || role === 'EDITOR') Object.assign(base, { EnvironmentUuid: org.envA, EnvironmentName: 'Env A', Bot: org.botA1 });
  return { ...base, ...overrides };
}

/** One entry of the bulk error list as the API answers it. */
export type BulkErrorDto = BulkError;
export type { JobView };

export interface BulkRequest {
  /** The bearer token; the organization's ADMIN unless given (`null`: none). */
  token?: string | null;
  language?: string;
  dryRun?: boolean | string;
  respondAsync?: boolean;
  /** Name of the file part (`file` unless given). */
  part?: string;
  filename?: string;
  headers?: Record<string, string>;
}

/** The bulk-create URL of an organization (with the query of `dryRun`). */
export const bulkCreateUrl = (org: TestOrg, dryRun?: boolean | string) => org.url(`/bulk-create${dryRun === undefined ? '' : `?dryRun=${dryRun}`}`);
export const bulkJobUrl = (org: TestOrg, jobId: string, path = '') => org.url(`/bulk-jobs/${jobId}${path}`);

export const authOf = (org: TestOrg, token: string | null | undefined): Record<string, string> => {
  const value = token === undefined ? org.admin.token : token;
  return value ? { authorization: `Bearer ${value}` } : {};
};

/** Uploads a CSV to `POST /users/bulk-create` as a multipart form. */
export function uploadCsv<T = BulkErrorDto[]>(org: TestOrg, csv: string | Buffer, request: BulkRequest = {}): Promise<ApiResponse<T>> {
  const form = new FormData();
  form.append(request.part ?? 'file', new Blob([csv], { type: 'text/csv' }), request.filename ?? 'users.csv');
  return send<T>(bulkCreateUrl(org, request.dryRun), {
    method: 'POST',
    headers: {
      ...authOf(org, request.token),
      ...(request.language ? { language: request.language } : {}),
      ...(request.respondAsync ? { prefer: 'respond-async' } : {}),
      ...request.headers,
    },
    body: form,
  });
}

/** A GET of the bulk routes (job, failed rows) as the ADMIN unless a token is given. */
export function getBulk<T = JobView>(org: TestOrg, url: string, token?: string | null): Promise<ApiResponse<T>> {
  return send<T>(url, { method: 'GET', headers: authOf(org, token) });
}

type RevokeItems = operations['bulk.revoke']['requestBody']['content']['application/json'];
type UploadHeader = NonNullable<operations['bulk.upload']['parameters']['header']>;

/**
 * The bulk routes of an organization that take JSON or no body, through the typed client, named by
 * their operation ids: as its ADMIN, or as the holder of `token` (`null`: no token). The two that take
 * a CSV file are `uploadCsv` and `grantRequest` (bulk-users-helpers.ts).
 */
export function bulkRoutes(org: Pick<TestOrg, 'orgUuid' | 'admin'>, token?: string | null) {
  const client = token === undefined ? org.admin.client : stackApiClient(token ?? undefined);
  const orgUUID = org.orgUuid;
  const query = (dryRun: boolean | undefined) => (dryRun === undefined ? {} : { dryRun: dryRun ? ('true' as const) : ('false' as const) });
  const job = (jobId: string) => ({ params: { path: { orgUUID, jobId } } });
  return {
    upload: (header: UploadHeader = {}) => answer(client.POST('/user-management/org/{orgUUID}/users/bulk-uploads', { params: { path: { orgUUID }, header } })),
    job: (jobId: string) => answer(client.GET('/user-management/org/{orgUUID}/users/bulk-jobs/{jobId}', job(jobId))),
    failedRows: (jobId: string) => answer(client.GET('/user-management/org/{orgUUID}/users/bulk-jobs/{jobId}/failed-rows', { ...job(jobId), parseAs: 'text' })),
    retry: (jobId: string) => answer(client.POST('/user-management/org/{orgUUID}/users/bulk-jobs/{jobId}/retry', job(jobId))),
    welcomes: (jobId: string) => answer(client.POST('/user-management/org/{orgUUID}/users/bulk-jobs/{jobId}/welcomes', job(jobId))),
    delete: (emails: string[], dryRun?: boolean) =>
      answer(client.DELETE('/user-management/org/{orgUUID}/users/bulk-delete', { params: { path: { orgUUID }, query: query(dryRun) }, body: emails })),
    revoke: (items: RevokeItems, dryRun?: boolean) =>
      answer(client.DELETE('/user-management/org/{orgUUID}/users/bulk-permissions', { params: { path: { orgUUID }, query: query(dryRun) }, body: items })),
  };
}

/** Polls a job resource until it is done or failed; fails the test after `timeoutMs`. */
export async function pollJob(org: TestOrg, location: string, timeoutMs = 20_000): Promise<{ view: JobView; seen: JobView['status'][] }> {
  const url = new URL(location, org.url()).toString();
  const seen: JobView['status'][] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await getBulk(org, url);
    if (response.status !== 200) throw new Error(`Job read failed with ${response.status}: ${response.text}`);
    seen.push(response.body.status);
    if (response.body.status === 'done' || response.body.status === 'failed') return { view: response.body, seen };
    if (Date.now() > deadline) throw new Error(`Job still ${response.body.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The 422 `NO_USER_CREATED` body's details. */
export type NoUserCreatedBody = StandardErrorBody & { details: (BulkErrorDto & { fieldName: string })[] };

/** The errors without their messages, for comparing what failed and why. */
export const codesOf = (errors: BulkErrorDto[]) => errors.map(({ email, line, errorCode }) => ({ email, line, errorCode }));

/** An entry of `codesOf`: the e-mail of the user that failed, the line at fault and the rule's code. */
export const rule = (email: string, line: number, errorCode: string) => ({ email, line, errorCode });

/** Nothing of these e-mails exists in the organization: no user (any status), no e-mail claim, no e-mail sent. */
export async function expectNothingFor(org: TestOrg, emails: string[]): Promise<void> {
  const users = await listAllUsers(org.admin.api, org, '&status=ALL');
  expect(users.filter((user) => emails.includes(user.email))).toEqual([]);
  for (const email of emails) {
    expect(await getEmailClaim(org.orgUuid, email)).toBeUndefined();
    expect(await mailsTo(email)).toEqual([]);
  }
}

/** The users of the organization with one of these e-mails, any status, as the listing shows them. */
export async function listedWith(org: TestOrg, emails: string[]) {
  const wanted = new Set(emails.map((email) => email.toLowerCase()));
  return (await listAllUsers(org.admin.api, org, '&status=ALL')).filter((user) => wanted.has(user.email.toLowerCase()));
}

/** Each e-mail is exactly one user, with the uuid `job` gives it, its claim done and its enabled account; the users, as listed. */
export async function expectCreatedOnce(org: TestOrg, job: BulkJob, emails: string[]) {
  const users = await listedWith(org, emails);
  expect(users.map((user) => user.email).sort()).toEqual([...emails].sort());
  for (const user of users) {
    const uuid = jobUserUuid(job.jobId, user.email);
    expect(user.uuid).toBe(uuid);
    expect(await getEmailClaim(org.orgUuid, user.email)).toMatchObject({ userUuid: uuid, state: 'DONE' });
    expect(await identityOf(uuid)).toEqual({ email: user.email, enabled: true });
  }
  return users;
}

/** The temporary password a welcome e-mail in `language` gives, if any. */
export function mailedPassword(mail: ReceivedMail, language: Language): string | undefined {
  const copy = messagesOf(language).mail;
  // A generated password is labelled temporary; one the ADMIN (or the file) set is not.
  for (const label of [copy.welcome.temporaryPasswordLabel, copy.welcome.passwordLabel].map((text) => `${text}${copy.colon}`)) {
    const line = (mail.body.text ?? '').split('\n').find((l) => l.startsWith(label));
    if (line) return line.slice(label.length).trim();
  }
  return undefined;
}

/**
 * A job whose file is in the bucket, ready for the test to run the worker on itself. The object is
 * put first and the job recorded only afterwards: the local stack's worker, started by the object's
 * creation event, finds no job then and ignores the upload ("bulk upload without a job"), so the only
 * runs of the job are the test's own. The local S3 emits the event before it answers the put, and the pause
 * leaves the stack's worker time to read the (absent) job first.
 */
export async function stageJob(
  org: TestOrg,
  csv: string,
  options: { dryRun?: boolean; language?: Language } = {},
): Promise<BulkJob> {
  const jobId = randomUUID();
  await saveUpload(org.orgUuid, jobId, csv);
  await sleep(300);
  const now = new Date().toISOString();
  const job: BulkJob = {
    jobId,
    orgUuid: org.orgUuid,
    requestedBy: org.admin.uuid,
    language: options.language ?? 'en',
    dryRun: options.dryRun ?? false,
    status: 'queued',
    counts: { rows: 0, created: 0, failed: 0 },
    progress: { processed: 0, total: 0 },
    createdAt: now,
    updatedAt: now,
  };
  await createJob(job);
  return job;
}
