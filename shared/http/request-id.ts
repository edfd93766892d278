import { randomUUID } from 'node:crypto';
import type middy from '@middy/core';
import { logger } from '../logger';
import type { HttpEvent, HttpResult, RequestContext } from './types';

const MAX_LENGTH = 128;
const SAFE = /^[A-Za-z0-9._:-]+$/;

/**
 * Honours a client's `x-request-id` (when short and printable, so it cannot forge log lines) or makes
 * one, puts it on every log line of the invocation, echoes it in the response and logs one line per
 * request with its outcome.
 */
export function requestId(): middy.MiddlewareObj<HttpEvent, HttpResult, Error, RequestContext> {
  const started = new WeakMap<object, number>();
  const finish = (request: middy.Request<HttpEvent, HttpResult, Error, RequestContext>) => {
    const response = request.response;
    if (!response) return;
    response.headers = { ...response.headers, 'x-request-id': request.context.requestId };
    logger.info('request completed', {
      method: request.event.requestContext?.http?.method,
      path: request.event.rawPath,
      status: response.statusCode,
      durationMs: Date.now() - (started.get(request) ?? Date.now()),
    });
  };
  return {
    before: (request) => {
      started.set(request, Date.now());
      const given = request.event.headers?.['x-request-id'];
      const id = given && given.length <= MAX_LENGTH && SAFE.test(given) ? given : randomUUID();
      request.context.requestId = id;
      logger.resetKeys();
      logger.appendKeys({ requestId: id });
    },
    after: finish,
    onError: finish,
  };
}
