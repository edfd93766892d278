import { randomUUID } from 'node:crypto';
import type middy from '@middy/core';
import { logger } from '../../kernel/logger';
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpResult } from './types';

const MAX_LENGTH = 128;
const SAFE = /^[A-Za-z0-9._:-]+$/;

/**
 * Honours a client's `x-request-id` (when short and printable, so it cannot forge log lines) or makes
 * one, puts it and API Gateway's request id on every log line of the invocation, echoes it in the response and logs one line per
 * request with its outcome.
 */
export function requestId(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, Context> {
  const started = new WeakMap<object, { at: number; id: string }>();
  const finish = (request: middy.Request<HttpEvent, HttpResult, Error, Context>) => {
    const response = request.response;
    const begun = started.get(request);
    if (!response || !begun) return;
    response.headers = { ...response.headers, 'x-request-id': begun.id };
    logger.info('request completed', {
      method: request.event.requestContext?.http?.method,
      path: request.event.rawPath,
      status: response.statusCode,
      durationMs: Date.now() - begun.at,
    });
  };
  return {
    before: (request) => {
      const given = request.event.headers?.['x-request-id'];
      const id = given && given.length <= MAX_LENGTH && SAFE.test(given) ? given : randomUUID();
      // API Gateway's own id, also in its access log: the correlation key that joins an access-log line
      // to these lines, beside the client's id.
      const apiRequestId = request.event.requestContext?.requestId;
      started.set(request, { at: Date.now(), id });
      // The routes read it from the context (`RequestContext`), past the router, whose context is open.
      Object.assign(request.context, { requestId: id });
      logger.resetKeys();
      logger.appendKeys({ requestId: id, ...(apiRequestId ? { apiRequestId } : {}) });
    },
    after: finish,
    onError: finish,
  };
}
