import Busboy from '@fastify/busboy';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AwsCredentialIdentity as Credentials } from '@smithy/types';
import { parseJson } from './kernel/parse-json';

/**
 * S3's browser-based upload (POST Object) checked as AWS checks it, in front of the S3 emulator, which
 * does not read its policy (docs/local-stack.md#the-local-s3 lists the answers).
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
 */

export type S3Refusal = { status: number; code: string; message: string; detail?: Record<string, string | number> };

/** What a valid policy allows of the file: its size range, in bytes. */
export type PolicyBounds = { minBytes: number; maxBytes: number };

type Condition = Record<string, unknown> | unknown[];

const denied = (message: string): S3Refusal => ({ status: 403, code: 'AccessDenied', message });
const invalidPolicy = (reason: string) => denied(`Invalid according to Policy: ${reason}`);
/** Fields the policy need not name (AWS's list). */
const unconditioned = (name: string) => ['policy', 'x-amz-signature', 'file'].includes(name) || name.startsWith('x-ignore-');

function signatureOf(secret: string, scope: string[], policy: string): Buffer {
  let key: Buffer | string = `AWS4${secret}`;
  for (const part of scope) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(policy).digest();
}

/** Checks a POST upload's form fields (lower-cased, before the file) against its policy: its size bounds, or S3's refusal. */
export function checkPostPolicy(fields: Map<string, string>, bucket: string, credentials: Credentials[], now = new Date()): PolicyBounds | S3Refusal {
  const encoded = fields.get('policy');
  // Without a policy the upload is anonymous, which a private bucket refuses.
  if (encoded === undefined) return denied('Access Denied');
  for (const name of ['x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'x-amz-signature']) {
    if (!fields.get(name)) return { status: 400, code: 'InvalidArgument', message: `Bucket POST must contain a field named '${name}'.` };
  }
  const [accessKeyId = '', ...scope] = fields.get('x-amz-credential')!.split('/');
  const secret = credentials.find((known) => known.accessKeyId === accessKeyId)?.secretAccessKey;
  if (secret === undefined) return { status: 403, code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const expected = signatureOf(secret, scope, encoded);
  const given = Buffer.from(fields.get('x-amz-signature')!, 'hex');
  if (fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { status: 403, code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.' };
  }
  const policy = parseJson(Buffer.from(encoded, 'base64').toString('utf8')) as { expiration?: unknown; conditions?: unknown } | null | undefined;
  if (!policy || typeof policy.expiration !== 'string' || !Array.isArray(policy.conditions)) return invalidPolicy('Policy could not be parsed as a valid JSON object.');
  if (!(Date.parse(policy.expiration) > now.getTime())) return invalidPolicy('Policy expired.');
  const valueOf = (name: string) => (name === 'bucket' ? bucket : fields.get(name));
  const named = new Set<string>();
  const bounds: PolicyBounds = { minBytes: 0, maxBytes: Number.POSITIVE_INFINITY };
  for (const condition of policy.conditions as Condition[]) {
    const failed = invalidPolicy(`Policy Condition failed: ${JSON.stringify(condition)}`);
    if (Array.isArray(condition)) {
      const [operator, subject, operand] = condition;
      if (operator === 'content-length-range' && typeof subject === 'number' && typeof operand === 'number') {
        bounds.minBytes = Math.max(bounds.minBytes, subject);
        bounds.maxBytes = Math.min(bounds.maxBytes, operand);
        continue;
      }
      if (typeof subject !== 'string' || !subject.startsWith('$') || typeof operand !== 'string') return failed;
      const name = subject.slice(1).toLowerCase();
      named.add(name);
      const value = valueOf(name) ?? '';
      if (operator === 'eq' ? value !== operand : operator === 'starts-with' ? !value.startsWith(operand) : true) return failed;
    } else if (condition && typeof condition === 'object') {
      for (const [rawName, expectedValue] of Object.entries(condition)) {
        const name = rawName.toLowerCase();
        named.add(name);
        if (valueOf(name) !== expectedValue) return failed;
      }
    } else {
      return failed;
    }
  }
  const extra = [...fields.keys()].filter((name) => !unconditioned(name) && !named.has(name));
  if (extra.length > 0) return invalidPolicy(`Extra input fields: ${extra.join(', ')}`);
  return bounds;
}

/** The size refusal AWS answers for a file outside the policy's `content-length-range`. */
export function sizeRefusal(size: number, bounds: PolicyBounds): S3Refusal | undefined {
  if (size > bounds.maxBytes) {
    return { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size', detail: { ProposedSize: size, MaxSizeAllowed: bounds.maxBytes } };
  }
  if (size < bounds.minBytes) {
    return { status: 400, code: 'EntityTooSmall', message: 'Your proposed upload is smaller than the minimum allowed size', detail: { ProposedSize: size, MinSizeAllowed: bounds.minBytes } };
  }
  return undefined;
}

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (char) => `&#${char.charCodeAt(0)};`);

function answerRefusal(response: ServerResponse, refusal: S3Refusal): void {
  const detail = Object.entries(refusal.detail ?? {}).map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`);
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${escapeXml(refusal.message)}</Message>${detail.join('')}<RequestId>${requestId}</RequestId><HostId>${requestId}</HostId></Error>`;
  response.writeHead(refusal.status, { 'content-type': 'application/xml', 'x-amz-request-id': requestId }).end(body);
}

/** A POST Object request: multipart, to a bucket's own path, no sub-resource (`?delete` is DeleteObjects). */
function bucketOfPostUpload(incoming: IncomingMessage): string | undefined {
  if (incoming.method !== 'POST' || !/^multipart\/form-data/i.test(incoming.headers['content-type'] ?? '')) return undefined;
  const match = /^\/([^/?]+)\/?$/.exec(incoming.url ?? '');
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/** Passes the whole body, read already, to the S3 emulator and its answer back. */
function forward(incoming: IncomingMessage, response: ServerResponse, body: Buffer, s3Port: number): void {
  const headers = { ...incoming.headers, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  const upstream = request({ host: '127.0.0.1', port: s3Port, method: incoming.method, path: incoming.url, headers }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
  upstream.on('error', () => response.destroy());
  upstream.end(body);
}

const malformed: S3Refusal = { status: 400, code: 'MalformedPOSTRequest', message: 'The body of your POST request is not well-formed multipart/form-data.' };

/**
 * Reads a POST upload to its end, then forwards it or answers the refusal: the policy checked when the
 * file part starts, the file's size as it streams; a refused upload is read on but no longer kept.
 */
function checkUpload(incoming: IncomingMessage, response: ServerResponse, bucket: string, s3Port: number, credentials: Credentials[]): void {
  const chunks: Buffer[] = [];
  const fields = new Map<string, string>();
  let refusal: S3Refusal | undefined;
  let bounds: PolicyBounds | undefined;
  let fileBytes = 0;
  let fileSeen = false;
  const refuse = (reason: S3Refusal) => {
    refusal ??= reason;
    chunks.length = 0;
  };
  const countFile = (bytes: number) => {
    fileBytes += bytes;
    if (bounds && fileBytes > bounds.maxBytes) refuse(sizeRefusal(fileBytes, bounds)!);
  };
  const startFile = () => {
    fileSeen = true;
    const checked = checkPostPolicy(fields, bucket, credentials);
    if ('code' in checked) refuse(checked);
    else bounds = checked;
  };
  const answer = () => {
    refusal ??= bounds && sizeRefusal(fileBytes, bounds);
    if (refusal) return answerRefusal(response, refusal);
    forward(incoming, response, Buffer.concat(chunks), s3Port);
  };

  let busboy: ReturnType<typeof Busboy>;
  try {
    busboy = Busboy({ headers: incoming.headers as { 'content-type': string } });
  } catch {
    incoming.resume();
    return void incoming.once('end', () => answerRefusal(response, malformed));
  }
  incoming.on('data', (chunk: Buffer) => {
    if (!refusal) chunks.push(chunk);
  });
  busboy.on('field', (name: string, value: string) => {
    if (fileSeen) return; // S3 reads the first file part and nothing after it.
    if (name.toLowerCase() !== 'file') return void fields.set(name.toLowerCase(), value);
    startFile();
    countFile(Buffer.byteLength(value));
  });
  busboy.on('file', (name: string, stream: NodeJS.ReadableStream) => {
    stream.on('error', () => undefined); // Busboy reports it too.
    if (fileSeen || name.toLowerCase() !== 'file') return void stream.resume();
    startFile();
    stream.on('data', (chunk: Buffer) => countFile(chunk.length));
  });
  // Busboy finishes once the body has ended and every part was read.
  busboy.on('finish', answer);
  busboy.on('error', () => {
    refuse(malformed);
    incoming.unpipe(busboy);
    if (incoming.readableEnded) answer();
    else incoming.resume().once('end', answer);
  });
  incoming.pipe(busboy);
}

/** The local S3's front server: POST uploads checked, then passed to the S3 emulator at `s3Port`; every other request to its listener `s3`. */
export function s3Front(s3: RequestListener, s3Port: number, credentials: Credentials[]): Server {
  return createServer((incoming, response) => {
    const bucket = bucketOfPostUpload(incoming);
    if (bucket === undefined) return s3(incoming, response);
    checkUpload(incoming, response, bucket, s3Port, credentials);
  });
}
