import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { SingleBar } from 'cli-progress';
import { apiErrorFrom, ok, type components } from '../../typescript/src/index';
import { orgOf, type Connection } from './connection';
import { EXIT, note, print, UsageError } from './output';

type Job = components['schemas']['BulkJob'];

export interface ImportFlags {
  file: string;
  dryRun: boolean;
  language?: string;
  errorsOut?: string;
  json: boolean;
}

const POLL_MS = 1000;
/** Without a terminal, a progress line this often. */
const LINE_MS = 5000;

/**
 * `users import`: uploads the CSV through the presigned form (files up to 50 MiB), follows the job
 * with a progress display on stderr, prints each failed row with its reasons, and writes the failed
 * rows as CSV to --errors-out. Exit 0 when every row succeeded, 1 when any failed.
 */
export async function importUsers(connection: Connection, flags: ImportFlags): Promise<number> {
  let csv: Buffer;
  try {
    csv = readFileSync(flags.file);
  } catch {
    throw new UsageError(`Cannot read ${flags.file}: check the path of the CSV file`);
  }
  if (flags.language && !['en', 'es', 'ja', 'pt'].includes(flags.language)) throw new UsageError(`--language must be en, es, ja or pt, not ${flags.language}`);
  const orgUUID = await orgOf(connection);
  const started = await ok(
    connection.api.POST('/user-management/org/{orgUUID}/users/bulk-uploads', {
      params: {
        path: { orgUUID },
        query: flags.dryRun ? { dryRun: 'true' } : {},
        header: flags.language ? { language: flags.language as 'en' | 'es' | 'ja' | 'pt' } : {},
      },
    }),
  );
  if (csv.length > started.upload.maxBytes) throw new UsageError(`${flags.file} is larger than the ${started.upload.maxBytes} bytes an import takes: split it`);
  await upload(started.upload, csv, basename(flags.file));
  note(`Uploaded ${flags.file}: job ${started.jobId}${flags.dryRun ? ' (dry run: nobody is created)' : ''}`);

  const job = await follow(connection, orgUUID, started.jobId);
  const errors = job.errors ?? [];
  if (flags.errorsOut && errors.length > 0) await writeFailedRows(connection, orgUUID, job.jobId, flags.errorsOut);
  print(flags.json, job, () => summary(job));
  if (job.status === 'failed') return EXIT.failed;
  return job.counts.failed > 0 || errors.length > 0 ? EXIT.failed : EXIT.ok;
}

async function upload(form: components['schemas']['BulkUpload']['upload'], csv: Buffer, name: string): Promise<void> {
  const body = new FormData();
  for (const [field, value] of Object.entries(form.fields)) body.append(field, value);
  body.append('file', new Blob([csv], { type: 'text/csv' }), name);
  const response = await fetch(form.url, { method: 'POST', body });
  if (!response.ok) {
    const code = /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1];
    throw new UsageError(`The upload was refused (${response.status}${code ? ` ${code}` : ''}): run the import again`);
  }
}

/** Polls the job until it is done or failed, showing its progress on stderr. */
async function follow(connection: Connection, orgUUID: string, jobId: string): Promise<Job> {
  const tty = process.stderr.isTTY === true;
  const bar = tty ? new SingleBar({ format: 'Importing [{bar}] {percentage}% | {value}/{total} rows | {created} created, {failed} failed', stream: process.stderr, hideCursor: true }) : undefined;
  let lastLine = 0;
  let barStarted = false;
  try {
    for (;;) {
      const job = await ok(connection.api.GET('/user-management/org/{orgUUID}/users/bulk-jobs/{jobId}', { params: { path: { orgUUID, jobId } } }));
      const { processed, total } = job.progress;
      const payload = { created: job.counts.created, failed: job.counts.failed };
      if (bar) {
        if (!barStarted && total > 0) {
          bar.start(total, processed, payload);
          barStarted = true;
        } else if (barStarted) bar.update(processed, payload);
      } else if (Date.now() - lastLine >= LINE_MS || job.status === 'done' || job.status === 'failed') {
        note(`Job ${job.status}: ${processed}/${total} rows, ${job.counts.created} created, ${job.counts.failed} failed`);
        lastLine = Date.now();
      }
      if (job.status === 'done' || job.status === 'failed') return job;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    if (barStarted) bar?.stop();
  }
}

async function writeFailedRows(connection: Connection, orgUUID: string, jobId: string, file: string): Promise<void> {
  const { data, error, response } = await connection.api.GET('/user-management/org/{orgUUID}/users/bulk-jobs/{jobId}/failed-rows', {
    params: { path: { orgUUID, jobId } },
    parseAs: 'text',
  });
  if (!response.ok || typeof data !== 'string') throw apiErrorFrom(response, error, 'GET');
  writeFileSync(file, data);
  note(`Wrote the failed rows to ${file}: fix them and import that file again`);
}

function summary(job: Job): string {
  const lines = (job.errors ?? []).map((error) => `line ${error.line}\t${error.email || '(no e-mail)'}\t${error.errorCode}\t${error.message}`);
  if (job.status === 'failed') lines.push(`The job failed: ${job.failure?.message ?? 'run `apctl api POST /user-management/org/{org}/users/bulk-jobs/' + job.jobId + '/retry`'}`);
  const verb = job.dryRun ? 'would be created' : 'created';
  lines.push(`${job.counts.rows} rows: ${job.counts.created} users ${verb}, ${job.counts.failed} failed.`);
  return lines.join('\n');
}
