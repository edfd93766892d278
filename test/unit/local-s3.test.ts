import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3Event } from 'aws-lambda';

/** The local S3 names each created object's event as S3 does, and keeps its objects across a restart. */

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

test('a PUT, a POST upload and a copy each raise S3 event of their kind; objects are kept across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-s3-'));
  try {
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/local-s3-child.ts', dir], { cwd: join(__dirname, '..', '..'), encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    const { posted, kept, events } = JSON.parse(child.stdout) as { posted: number; kept: string; events: S3Event['Records'] };
    expect(posted).toBe(204);
    expect(kept).toBe('hello');
    expect(events.map((record) => [record.eventName, record.s3.bucket.name, record.s3.object.key, record.s3.object.size, record.s3.object.eTag])).toEqual([
      ['ObjectCreated:Put', 'local-bucket', 'uploads/a+file.csv', 3, md5('abc')],
      ['ObjectCreated:Post', 'local-bucket', 'uploads/posted.csv', 5, md5('hello')],
      ['ObjectCreated:Copy', 'local-bucket', 'copied.csv', 3, md5('abc')],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
