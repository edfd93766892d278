import { Logger } from '@aws-lambda-powertools/logger';
import { sourceMappedStack } from './source-mapped-stack';

type LogArguments = Parameters<Logger['error']>;

/** Powertools' logger, whose warnings and errors show an `Error`'s stack (and its causes') in the TypeScript sources. */
class SourceMappedLogger extends Logger {
  public override error(...[input, ...extra]: LogArguments): void {
    extra.forEach(mapStacks);
    super.error(input, ...extra);
  }

  public override warn(...[input, ...extra]: LogArguments): void {
    extra.forEach(mapStacks);
    super.warn(input, ...extra);
  }
}

/** Maps the stacks of an error and its causes in place (a mapped stack maps to itself). */
function mapStacks(value: unknown): void {
  for (let error = value, depth = 0; error instanceof Error && depth < 8; error = error.cause, depth++) {
    if (error.stack) error.stack = sourceMappedStack(error.stack);
  }
}

/**
 * The structured logger every module uses. Request-scoped keys (request id) are set by the HTTP chain
 * and the event functions' chain as each invocation starts, replacing the last one's. Nothing logs
 * request bodies, headers, passwords, tokens or e-mail bodies: log the facts (ids, counts, outcomes)
 * instead.
 */
export const logger: Logger = new SourceMappedLogger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'management-api',
});
