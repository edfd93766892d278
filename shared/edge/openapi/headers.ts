import { languages } from '../../kernel/messages/languages';
import type { RequestHeader, ResponseHeader } from '../api/operation';
import type { Json } from './schema-converter';

/** The document's shared headers: request headers as `components.parameters`, response headers as `components.headers`. */

export const headerRefs = (names: (ResponseHeader | 'WWW-Authenticate')[]): Json =>
  Object.fromEntries(['X-Request-Id', ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]));

export function requestHeaderParameters(): Record<RequestHeader | 'XRequestId', Json> {
  return {
    XRequestId: {
      name: 'x-request-id',
      in: 'header',
      required: false,
      description: "The client's request id for distributed logs (short, printable); answered back in `x-request-id`.",
      schema: { type: 'string', maxLength: 200 },
    },
    Language: {
      name: 'language',
      in: 'header',
      required: false,
      description: 'Language of the e-mail sent to the user (any case).',
      schema: { type: 'string', enum: [...languages], default: 'en' },
    },
    IfMatch: {
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'ETag(s) of the version read; a mismatch is a 409 VERSION_CONFLICT.',
      schema: { type: 'string' },
    },
    Prefer: {
      name: 'Prefer',
      in: 'header',
      required: false,
      description: '`respond-async` answers 202 and the job at once (RFC 7240).',
      schema: { type: 'string' },
    },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        "A key of the caller's choosing (one per intended operation, e.g. a UUID), scoped to the calling user and kept 24 hours. " +
        'The same key with the same request (method, path and query, body) answers the first answer again, status, body and headers, ' +
        'with `Idempotent-Replayed: true`, and does nothing more; with a different request it is a 422 `IDEMPOTENCY_KEY_REUSED`; ' +
        'while the first request still runs, a 409 `IDEMPOTENCY_IN_PROGRESS`. An error answer is not kept: a retry runs again. ' +
        'A malformed key is a 422 naming `Idempotency-Key`.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    },
  };
}

export function responseHeaders(): Record<ResponseHeader | 'X-Request-Id' | 'WWW-Authenticate', Json> {
  const text = (description: string) => ({ description, schema: { type: 'string' } });
  return {
    'X-Request-Id': text("The request's id: the client's `x-request-id` when usable, else a new UUID"),
    ETag: text("The resource's version, quoted; send it back in If-Match"),
    Location: text('Where the job is polled, or the page to see next'),
    'Preference-Applied': text('`respond-async` when the Prefer header was honoured'),
    'Content-Disposition': text('attachment; filename="failed-rows-{jobId}.csv"'),
    'Cache-Control': text('no-store on every answer that carries a secret or a token (tokens, SCIM tokens, webhook secrets) and on pages; public, max-age=300 on keys'),
    Pragma: text('no-cache beside Cache-Control: no-store, for HTTP/1.0 caches'),
    'Set-Cookie': text("The account page's session (HttpOnly, SameSite=Strict, scoped to the page's path)"),
    'WWW-Authenticate': text('`Bearer` without a token; `Bearer error="invalid_token", error_description="…"` when the token was refused (malformed, expired, its session ended)'),
    'Retry-After': text('Seconds to wait before the next request (the SCIM endpoints\u2019 per-organization rate; an AWS service over its request rate)'),
    'Idempotent-Replayed': { description: '`true` on an answer replayed for an `Idempotency-Key` seen before', schema: { type: 'string', enum: ['true'] } },
  };
}

