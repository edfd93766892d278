import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { allowedAddresses, AddressRefused, DNS_TIMEOUT_MS, type CheckedAddress, type Resolver } from './outbound-address';

/** How long an attempt may take, its host's resolution included, and how much of the answer is read (and dropped). */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const MAX_ANSWER_BYTES = 4096;

/** Why an attempt failed, when it did. */
export type FailureKind = 'refused-address' | 'timeout' | 'connection' | 'redirect' | 'http-status';

/**
 * What became of a call. `detail` names the rule a failure broke and is the same whatever answered:
 * never the answer's body or reason phrase, a TLS, DNS or socket error's text or code, nor an
 * address, since whoever reads it (an ADMIN in the delivery log, a sign-in's `error_description`)
 * chose where the call went and must not learn from it what listens there.
 */
export interface PostOutcome {
  ok: boolean;
  /** The answer's status, null when there was none. */
  status: number | null;
  latencyMs: number;
  failure?: FailureKind;
  /** What went wrong, in the rule's words (never a secret: no header or body of the request). */
  detail?: string;
}

/** A connection's failure, whatever it was (refused, reset, TLS, not HTTP): one sentence, so none tells what answered. */
export const CONNECTION_FAILED =
  'No answer could be read: the receiver must accept https connections on port 443 or 8443, with a certificate valid for its host name, and answer HTTP';

export interface PostOptions {
  allowLoopbackHttp: boolean;
  resolve?: Resolver;
  timeoutMs?: number;
  /** The rule a refused address names (`AddressOptions.rule`). */
  rule?: string;
}

/** A lookup that answers only the checked address: the connection goes where the check looked. */
const pinnedLookup =
  ({ address, family }: CheckedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (error: null, addresses: CheckedAddress[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

/**
 * POSTs `body` to `url`: the host resolved (within `DNS_TIMEOUT_MS`) and checked first, the
 * connection made to the checked address, no redirect followed, the answer read up to
 * `MAX_ANSWER_BYTES` and dropped (only its status counts), all within the timeout. Never throws:
 * every failure is an outcome.
 */
export async function postJson(url: URL, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostOutcome> {
  const { answer: _dropped, ...outcome } = await exchange(url, 'POST', { ...headers, 'content-length': String(Buffer.byteLength(body)) }, body, {
    ...options,
    maxBytes: MAX_ANSWER_BYTES,
  });
  return outcome;
}

/** What a GET of a document answered: as a POST's outcome, with the whole body read (`tooLarge` when it went past the bound). */
export interface GetOutcome extends PostOutcome {
  body: string;
  tooLarge: boolean;
}

/**
 * GETs `url` under the same rules as `postJson` (checked addresses, no redirects, a timeout), reading
 * at most `maxBytes` of the answer: a larger one fails (`tooLarge`). For documents a caller names
 * (an OpenID provider's discovery document). Never throws.
 */
export async function getDocument(url: URL, headers: Record<string, string>, options: PostOptions & { maxBytes: number }): Promise<GetOutcome> {
  const { answer, ...outcome } = await exchange(url, 'GET', headers, undefined, { ...options, maxBytes: options.maxBytes + 1 });
  const tooLarge = answer.length > options.maxBytes;
  return { ...outcome, ...(tooLarge ? { ok: false } : {}), body: tooLarge ? '' : answer.toString('utf8'), tooLarge };
}

/**
 * POSTs a form to `url` under the same rules, reading at most `maxBytes` of the answer, as `getDocument`
 * does: for an exchange whose answer is a document (an OpenID provider's token endpoint). Never throws.
 */
export async function postForm(url: URL, headers: Record<string, string>, form: URLSearchParams, options: PostOptions & { maxBytes: number }): Promise<GetOutcome> {
  const body = form.toString();
  const { answer, ...outcome } = await exchange(
    url,
    'POST',
    { ...headers, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) },
    body,
    { ...options, maxBytes: options.maxBytes + 1 },
  );
  const tooLarge = answer.length > options.maxBytes;
  return { ...outcome, ...(tooLarge ? { ok: false } : {}), body: tooLarge ? '' : answer.toString('utf8'), tooLarge };
}

/** One request to a checked address; the answer's first `maxBytes` bytes. */
async function exchange(
  url: URL,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body: string | undefined,
  options: PostOptions & { maxBytes: number },
): Promise<PostOutcome & { answer: Buffer }> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const none = Buffer.alloc(0);
  let address: CheckedAddress;
  try {
    const checked = await allowedAddresses(url, options.allowLoopbackHttp, { resolve: options.resolve, timeoutMs: Math.min(DNS_TIMEOUT_MS, timeoutMs), rule: options.rule });
    address = checked[0]!;
  } catch (error) {
    const detail = error instanceof AddressRefused ? error.message : 'The host could not be checked';
    return { ok: false, status: null, latencyMs: latency(), failure: 'refused-address', detail, answer: none };
  }
  type Outcome = Omit<PostOutcome, 'latencyMs'> & { answer: Buffer };
  return new Promise((settle) => {
    let done = false;
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      request.destroy();
      settle({ ...outcome, latencyMs: latency() });
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method,
        headers,
        lookup: pinnedLookup(address),
        // One request per connection: nothing of one receiver's connection outlives its delivery.
        agent: false,
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let read = 0;
        const answered = () => {
          const answer = Buffer.concat(chunks).subarray(0, options.maxBytes);
          if (status >= 200 && status < 300) finish({ ok: true, status, answer });
          else if (status >= 300 && status < 400) finish({ ok: false, status, failure: 'redirect', detail: `The receiver answered ${status}, a redirect, which is not followed`, answer });
          else finish({ ok: false, status, failure: 'http-status', detail: `The receiver answered ${status}, not 2xx`, answer });
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          read += chunk.length;
          if (read >= options.maxBytes) answered();
        });
        response.on('end', answered);
        response.on('error', () => answered());
      },
    );
    // The resolution took its share of the attempt's time.
    const timer = setTimeout(
      () => finish({ ok: false, status: null, failure: 'timeout', detail: `The receiver did not answer within ${timeoutMs / 1000} s`, answer: none }),
      Math.max(0, timeoutMs - latency()),
    );
    request.on('error', () => finish({ ok: false, status: null, failure: 'connection', detail: CONNECTION_FAILED, answer: none }));
    request.end(body);
  });
}
