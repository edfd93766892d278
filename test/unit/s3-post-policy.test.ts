import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { checkPostPolicy, sizeRefusal, type PolicyBounds } from '../../infra/local/s3-post-policy';

// The local S3's check of a POST upload's form, on forms signed by the SDK as the bulk function signs
// them (no request is sent: the endpoint is only written into the form's URL).

const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const client = new S3Client({ region: 'us-east-1', credentials, endpoint: 'http://127.0.0.1:1', forcePathStyle: true });
const bucket = 'management-api-bulk';
const key = 'uploads/org/job.csv';

async function form(options: { expires?: number; conditions?: Parameters<typeof createPresignedPost>[1]['Conditions'] } = {}) {
  const { fields } = await createPresignedPost(client, {
    Bucket: bucket,
    Key: key,
    Conditions: options.conditions ?? [['content-length-range', 1, 100]],
    Expires: options.expires ?? 60,
  });
  return new Map(Object.entries(fields).map(([name, value]) => [name.toLowerCase(), value]));
}

const check = (fields: Map<string, string>, now?: Date) => checkPostPolicy(fields, bucket, [credentials], now);
const codeOf = (result: ReturnType<typeof checkPostPolicy>) => ('code' in result ? `${result.status} ${result.code}: ${result.message}` : result);

test('a form as signed is taken, with the size its policy allows', async () => {
  expect(check(await form())).toEqual({ minBytes: 1, maxBytes: 100 });
});

test('a form without a policy is an anonymous upload, refused', async () => {
  const fields = await form();
  fields.delete('policy');

  expect(codeOf(check(fields))).toBe('403 AccessDenied: Access Denied');
});

test.each(['x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-signature'])('a form without %s is refused, naming it', async (name) => {
  const fields = await form();
  fields.delete(name);

  expect(codeOf(check(fields))).toBe(`400 InvalidArgument: Bucket POST must contain a field named '${name}'.`);
});

test('a form signed with a key the stack does not know, or whose signature or policy was changed, is refused', async () => {
  const unknown = await form();
  unknown.set('x-amz-credential', unknown.get('x-amz-credential')!.replace('S3RVER', 'AKIAOTHER'));
  const signature = await form();
  signature.set('x-amz-signature', '0'.repeat(64));
  const policy = await form();
  const decoded = JSON.parse(Buffer.from(policy.get('policy')!, 'base64').toString('utf8')) as { conditions: unknown[] };
  policy.set('policy', Buffer.from(JSON.stringify({ ...decoded, conditions: [...decoded.conditions.slice(0, -1), ['starts-with', '$key', '']] })).toString('base64'));

  expect(codeOf(check(unknown))).toMatch(/^403 InvalidAccessKeyId: /);
  expect(codeOf(check(signature))).toMatch(/^403 SignatureDoesNotMatch: /);
  expect(codeOf(check(policy))).toMatch(/^403 SignatureDoesNotMatch: /);
});

test('a policy past its expiration is refused', async () => {
  const fields = await form({ expires: 60 });

  expect(check(fields, new Date(Date.now() + 59_000))).toEqual({ minBytes: 1, maxBytes: 100 });
  expect(codeOf(check(fields, new Date(Date.now() + 61_000)))).toBe('403 AccessDenied: Invalid according to Policy: Policy expired.');
});

test('a field its condition refuses, and a field no condition names, are refused', async () => {
  const otherKey = await form();
  otherKey.set('key', 'uploads/another-org/job.csv');
  const startsWith = await form({ conditions: [['starts-with', '$Content-Type', 'text/']] });
  startsWith.set('content-type', 'application/zip');
  const extra = await form();
  extra.set('x-amz-meta-note', 'hello');
  const ignored = await form();
  ignored.set('x-ignore-note', 'hello');

  expect(codeOf(check(otherKey))).toBe(`403 AccessDenied: Invalid according to Policy: Policy Condition failed: {"key":"${key}"}`);
  expect(codeOf(check(startsWith))).toBe('403 AccessDenied: Invalid according to Policy: Policy Condition failed: ["starts-with","$Content-Type","text/"]');
  expect(codeOf(check(extra))).toBe('403 AccessDenied: Invalid according to Policy: Extra input fields: x-amz-meta-note');
  expect(check(ignored)).toEqual({ minBytes: 1, maxBytes: 100 });
});

test('a file outside content-length-range is EntityTooLarge or EntityTooSmall, with the sizes', () => {
  const bounds: PolicyBounds = { minBytes: 1, maxBytes: 100 };

  expect([sizeRefusal(1, bounds), sizeRefusal(100, bounds)]).toEqual([undefined, undefined]);
  expect(sizeRefusal(101, bounds)).toEqual({
    status: 400,
    code: 'EntityTooLarge',
    message: 'Your proposed upload exceeds the maximum allowed size',
    detail: { ProposedSize: 101, MaxSizeAllowed: 100 },
  });
  expect(sizeRefusal(0, bounds)).toEqual({
    status: 400,
    code: 'EntityTooSmall',
    message: 'Your proposed upload is smaller than the minimum allowed size',
    detail: { ProposedSize: 0, MinSizeAllowed: 1 },
  });
});
