import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { NotFoundError } from '../../kernel/errors';
import type { HttpEvent, HttpResult } from './types';

/** Whether a path is valid percent-encoding of UTF-8: `%` then two hex digits, forming whole UTF-8 sequences. */
export function percentDecodes(raw: string): boolean {
  try {
    decodeURIComponent(raw);
    return true;
  } catch {
    return false;
  }
}

/**
 * A path that does not percent-decode (`%`, `%zz`, a cut or invalid UTF-8 sequence such as `%E0%A4%A`
 * or `%C0%AF`) is a 404 `NOT_FOUND` with the standard body, for every route and before authentication.
 *
 * Why 404 and not 400: such a path names nothing that could exist (no uuid, realm or route holds a
 * `%`), which is what 404 says, as for a `userId` that is not a uuid; the OpenAPI document lists both statuses
 * for every operation without saying which condition yields which. API Gateway hands the function
 * `rawPath` as sent, and such a path value undecoded (the local gateway does the same), so this check
 * reads `rawPath` and never depends on how far the gateway got in decoding. It runs inside the chain,
 * so the error mapper answers and the request id is echoed.
 */
export function pathDecodes(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, Context> {
  return {
    before: (request) => {
      if (!percentDecodes(request.event.rawPath ?? '')) {
        throw new NotFoundError('The path is not valid percent-encoding, so it names no resource');
      }
    },
  };
}
