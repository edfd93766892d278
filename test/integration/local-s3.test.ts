import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { LOCAL_CREDENTIALS } from '../../infra/local/provision';
import { LOCAL_REGION } from '../../infra/local/kernel/local-account';
import { stack, unique } from '../support/stack';

/**
 * The local S3 (fauxqs's, behind the stack's POST policy check) answers what the stack's code and a
 * developer's tools send, as S3 does: docs/decisions/s3-emulator-fauxqs.md lists what was checked.
 * Its POST uploads, their policy and the object-created event are the bulk tests' subject.
 */

const client = new S3Client({ endpoint: stack().endpoints.s3, region: LOCAL_REGION, forcePathStyle: true, credentials: LOCAL_CREDENTIALS });
const Bucket = process.env.BULK_BUCKET_NAME!;

afterAll(() => client.destroy());

test('an object put is read back with its type and size, then deleted; a missing key is NoSuchKey, a missing bucket NoSuchBucket', async () => {
  const Key = `tests/${unique()}/a file.csv`;
  await client.send(new PutObjectCommand({ Bucket, Key, Body: 'email\nada@example.com\n', ContentType: 'text/csv' }));
  const head = await client.send(new HeadObjectCommand({ Bucket, Key }));
  expect({ type: head.ContentType, size: head.ContentLength }).toEqual({ type: 'text/csv', size: 22 });
  const got = await client.send(new GetObjectCommand({ Bucket, Key }));
  expect(await got.Body!.transformToString()).toBe('email\nada@example.com\n');

  await client.send(new DeleteObjectCommand({ Bucket, Key }));
  await expect(client.send(new GetObjectCommand({ Bucket, Key }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  await expect(client.send(new GetObjectCommand({ Bucket: `missing-${unique()}`, Key }))).rejects.toMatchObject({ name: 'NoSuchBucket' });
});

test('a body larger than the emulator reads by default (11 MiB) is taken whole, as S3 takes up to 5 GiB in one request', async () => {
  const Key = `tests/${unique()}/large.bin`;
  const body = Buffer.alloc(12 * 1024 * 1024, 7);
  await client.send(new PutObjectCommand({ Bucket, Key, Body: body }));
  const head = await client.send(new HeadObjectCommand({ Bucket, Key }));
  expect(head.ContentLength).toBe(body.length);
  await client.send(new DeleteObjectCommand({ Bucket, Key }));
});
