import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../../kernel/logger';
import { publishMetrics } from '../../kernel/metrics';
import type { HttpEvent, HttpResult } from './types';

/**
 * Puts the Lambda context on every log line of the invocation (function name and version, its request
 * id, cold start, memory) and writes the invocation's metrics when it ends, failed or not.
 */
export function observability(group: string): middy.MiddlewareObj<HttpEvent, HttpResult, Error, Context> {
  const publish = (request: middy.Request<HttpEvent, HttpResult, Error, Context>) =>
    publishMetrics(group, (request.context as Context & { requestId?: string }).requestId);
  return {
    before: (request) => {
      logger.addContext(request.context);
    },
    after: publish,
    onError: publish,
  };
}
