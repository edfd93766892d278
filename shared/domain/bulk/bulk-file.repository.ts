import { CopyObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { Readable } from 'node:stream';
import { s3Client } from '../../adapters/clients/s3';
import { config, ConfigError, envNames } from '../../kernel/config';
import type { BulkError } from './bulk-job.entities';

/**
 * A bulk-create job's files, objects of the bulk bucket: the uploaded CSV under `uploads/` (its
 * creation starts the worker), and the outcome (the error list and the failed rows as CSV) under
 * `results/`.
 */

/** Uploaded files and results live as long as the bucket's lifecycle keeps them, and the job as long. */
export const JOB_DAYS = 7;

export const uploadKey = (orgUuid: string, jobId: string) => `uploads/${orgUuid}/${jobId}.csv`;
const resultKey = (orgUuid: string, jobId: string) => `results/${orgUuid}/${jobId}/errors.json`;
const failedRowsKey = (orgUuid: string, jobId: string) => `results/${orgUuid}/${jobId}/failed-rows.csv`;

/** The organization and job an upload key names, or undefined for any other key. */
export function parseUploadKey(key: string): { orgUuid: string; jobId: string } | undefined {
  const match = /^uploads\/([0-9a-f-]{36})\/([0-9a-f-]{36})\.csv$/.exec(key);
  return match ? { orgUuid: match[1]!, jobId: match[2]! } : undefined;
}

function bucket(): string {
  const name = config().bulkBucket;
  if (!name) throw new ConfigError(`Missing environment variable ${envNames.bulkBucket}`);
  return name;
}

/** Stores a job's file, as a client's upload would (its creation starts the worker). */
export async function saveUpload(orgUuid: string, jobId: string, content: Buffer | string): Promise<void> {
  await putObject(uploadKey(orgUuid, jobId), content, 'text/csv');
}

/** Where and how a client uploads a job's file itself: a form POST to `url` with `fields` and the file last. */
export interface UploadForm {
  url: string;
  fields: Record<string, string>;
}

/**
 * A presigned POST that lets its holder upload the job's file for `seconds`, at most `maxBytes`: the
 * signed policy holds the size (`content-length-range`), so S3 itself refuses a larger file
 * (`EntityTooLarge`), which a presigned PUT, whose size is not signed, would take up to 5 GB.
 */
export async function uploadForm(orgUuid: string, jobId: string, { seconds, maxBytes }: { seconds: number; maxBytes: number }): Promise<UploadForm> {
  return createPresignedPost(s3Client(), {
    Bucket: bucket(),
    Key: uploadKey(orgUuid, jobId),
    Conditions: [['content-length-range', 0, maxBytes]],
    Expires: seconds,
  });
}

/** The job's file as a stream (the CSV is read as it arrives, never whole). */
export async function readUpload(orgUuid: string, jobId: string): Promise<Readable> {
  const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: uploadKey(orgUuid, jobId) }));
  return Body as Readable;
}

/** Starts the worker on the job's file again: S3 copies the object onto itself, an object-created event as the upload's. */
export async function restartUpload(orgUuid: string, jobId: string): Promise<void> {
  const Bucket = bucket();
  const key = uploadKey(orgUuid, jobId);
  await s3Client().send(
    new CopyObjectCommand({
      Bucket,
      Key: key,
      CopySource: `${Bucket}/${key}`,
      MetadataDirective: 'REPLACE',
      ContentType: 'text/csv',
      Metadata: { retried: new Date().toISOString() },
    }),
  );
}

export async function saveErrors(orgUuid: string, jobId: string, errors: BulkError[]): Promise<void> {
  await putObject(resultKey(orgUuid, jobId), JSON.stringify(errors), 'application/json');
}

export async function readErrors(orgUuid: string, jobId: string): Promise<BulkError[]> {
  const text = await objectText(resultKey(orgUuid, jobId));
  return text ? (JSON.parse(text) as BulkError[]) : [];
}

export async function saveFailedRows(orgUuid: string, jobId: string, csv: string): Promise<void> {
  await putObject(failedRowsKey(orgUuid, jobId), csv, 'text/csv; charset=utf-8');
}

/** The failed rows as CSV, or undefined when the job wrote none. */
export async function readFailedRows(orgUuid: string, jobId: string): Promise<string | undefined> {
  return objectText(failedRowsKey(orgUuid, jobId));
}

async function putObject(key: string, body: Buffer | string, contentType: string): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: body, ContentType: contentType }));
}

async function objectText(key: string): Promise<string | undefined> {
  try {
    const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
    return await Body!.transformToString('utf8');
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}
