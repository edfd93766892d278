import { bulkCreateLimits } from '../../shared/app/bulk/bulk.limits';
import { bulkJobUrl, getBulk, pollJob } from '../support/bulk-helpers';
import { call, type ApiResponse } from '../support/http-client';
import { freshOrganization, type TestOrg } from '../support/user-helpers';

/**
 * The presigned upload of `POST /users/bulk-uploads` is bounded by what it signs: its policy holds the
 * largest file (`content-length-range`), and S3 (here the local stack's S3, which checks POST
 * policies as AWS does) takes a file up to that size and refuses a larger one with `EntityTooLarge`,
 * storing nothing. A form whose policy was altered, or that carries a field the policy does not
 * name, is refused as well, so the bound cannot be lifted by the client.
 */

interface UploadAnswer {
  jobId: string;
  upload: { method: string; url: string; fields: Record<string, string>; maxBytes: number; expiresAt: string };
  job: string;
}

let org: TestOrg;
beforeAll(async () => {
  org = await freshOrganization();
});

async function newUpload(): Promise<UploadAnswer> {
  const response: ApiResponse<UploadAnswer> = await call(org.admin.token, 'POST', org.url('/bulk-uploads'));
  expect(response.status).toBe(201);
  return response.body;
}

/** Sends the form as a browser or curl does: the fields as given, then the file part. */
async function postForm(upload: UploadAnswer['upload'], file: Buffer, fields = upload.fields): Promise<{ status: number; body: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([file], { type: 'text/csv' }), 'users.csv');
  const response = await fetch(upload.url, { method: upload.method, body: form });
  return { status: response.status, body: await response.text() };
}

/**
 * A CSV of exactly `bytes`: more rows than a file may hold first (the worker stops reading there), the
 * rest a long last line, so that the worker's answer shows the file arrived without reading it all.
 */
function csvOfSize(bytes: number): Buffer {
  const head = `Email,Name,Role\r\n${'a,b,c\r\n'.repeat(bulkCreateLimits.maxRows + 1)}`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(bytes - head.length, 'x')]);
}

const xmlCode = (body: string) => /<Code>([^<]*)<\/Code>/.exec(body)?.[1];

test('the answer is a presigned POST whose signed policy holds the largest file the bulk worker reads', async () => {
  const { upload } = await newUpload();
  const policy = JSON.parse(Buffer.from(upload.fields.Policy!, 'base64').toString('utf8')) as { conditions: unknown[] };

  expect(upload).toMatchObject({ method: 'POST', maxBytes: bulkCreateLimits.maxBytes });
  expect(policy.conditions).toContainEqual(['content-length-range', 0, bulkCreateLimits.maxBytes]);
  expect(Object.keys(upload.fields)).toEqual(expect.arrayContaining(['key', 'Policy', 'X-Amz-Signature', 'X-Amz-Credential']));
});

test('a file of the largest size is taken and runs its job; one byte more is refused by S3 with EntityTooLarge and stores nothing', async () => {
  const [atBound, overBound] = await Promise.all([newUpload(), newUpload()]);

  const taken = await postForm(atBound.upload, csvOfSize(atBound.upload.maxBytes));
  const refused = await postForm(overBound.upload, csvOfSize(overBound.upload.maxBytes + 1));

  expect(taken.status).toBe(204);
  expect({ status: refused.status, code: xmlCode(refused.body) }).toEqual({ status: 400, code: 'EntityTooLarge' });
  expect(refused.body).toContain(`<ProposedSize>${overBound.upload.maxBytes + 1}</ProposedSize><MaxSizeAllowed>${overBound.upload.maxBytes}</MaxSizeAllowed>`);
  expect((await pollJob(org, atBound.job)).view).toMatchObject({ status: 'failed', failure: { errorCode: 'TOO_MANY_ROWS' } });
  const untouched = await getBulk(org, bulkJobUrl(org, overBound.jobId));
  expect({ status: untouched.status, job: untouched.body.status }).toEqual({ status: 200, job: 'queued' });
});

test('a form whose policy was altered to lift the bound, or that adds a field the policy does not name, is refused', async () => {
  const { upload } = await newUpload();
  const policy = JSON.parse(Buffer.from(upload.fields.Policy!, 'base64').toString('utf8')) as { conditions: unknown[] };
  const lifted = policy.conditions.map((condition) => (Array.isArray(condition) && condition[0] === 'content-length-range' ? ['content-length-range', 0, 5 * 1024 ** 3] : condition));
  const file = Buffer.from('Email,Name,Role\r\n');

  const altered = await postForm(upload, file, { ...upload.fields, Policy: Buffer.from(JSON.stringify({ ...policy, conditions: lifted })).toString('base64') });
  const extra = await postForm(upload, file, { ...upload.fields, 'Content-Type': 'text/csv' });

  expect({ status: altered.status, code: xmlCode(altered.body) }).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
  expect({ status: extra.status, code: xmlCode(extra.body) }).toEqual({ status: 403, code: 'AccessDenied' });
  expect(extra.body).toContain('Invalid according to Policy: Extra input fields: content-type');
});
