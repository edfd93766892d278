import type { AddressInfo } from 'node:net';
import { CopyObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { S3Event } from 'aws-lambda';
import { startS3 } from '../../infra/local/emulators';
import { LOCAL_REGION } from '../../infra/local/kernel/local-account';
import { LOCAL_CREDENTIALS } from '../../infra/local/provision';

/**
 * The local S3 in a process of its own (fauxqs's modules are ES modules, which jest's CommonJS does not
 * load): `node --import tsx test/support/local-s3-child.ts <data dir>` puts, POSTs and copies an object,
 * restarts on the same directory and reads the first back, then prints what it saw as one JSON line
 * (test/unit/local-s3.test.ts).
 */
const directory = process.argv[2]!;
const bucket = 'local-bucket';
const events: S3Event['Records'] = [];

async function started() {
  const front = await startS3(directory, bucket, (event) => events.push(...event.Records));
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const client = new S3Client({ endpoint: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, region: LOCAL_REGION, forcePathStyle: true, credentials: LOCAL_CREDENTIALS });
  const stop = () => {
    client.destroy();
    return new Promise<void>((resolve) => front.close(() => resolve()));
  };
  return { client, stop };
}

let s3 = await started();
await s3.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'uploads/a file.csv', Body: 'abc' }));
const { url, fields } = await createPresignedPost(s3.client, { Bucket: bucket, Key: 'uploads/posted.csv', Conditions: [['content-length-range', 1, 100]], Expires: 60 });
const form = new FormData();
for (const [name, value] of Object.entries(fields)) form.append(name, value);
form.append('file', new Blob(['hello']));
const posted = (await fetch(url, { method: 'POST', body: form })).status;
await s3.client.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copied.csv', CopySource: `${bucket}/uploads/a file.csv` }));
await s3.stop();
s3 = await started();
const kept = await (await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'uploads/posted.csv' }))).Body!.transformToString();
await s3.stop();
console.log(JSON.stringify({ posted, kept, events }));
