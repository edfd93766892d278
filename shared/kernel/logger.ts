import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The structured logger every module uses. Request-scoped keys (request id) are set by the HTTP chain
 * and the event functions' chain as each invocation starts, replacing the last one's. Nothing logs
 * request bodies, headers, passwords, tokens or e-mail bodies: log the facts (ids, counts, outcomes)
 * instead.
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'management-api',
});
