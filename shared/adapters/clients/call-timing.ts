import { performance } from 'node:perf_hooks';
import type { HandlerExecutionContext, Pluggable } from '@smithy/types';
import { recordAwsCall } from '../../kernel/metrics';

/** `DynamoDBClient` → `DynamoDB`, `GetItemCommand` → `GetItem`: the names AWS's own documents use. */
const shortName = (name: string | undefined, suffix: string) => (!name ? 'unknown' : name.endsWith(suffix) ? name.slice(0, -suffix.length) : name);

const attemptsOf = (result: unknown): number | undefined => (result as { $metadata?: { attempts?: number } } | undefined)?.$metadata?.attempts;

/**
 * Times each call a client makes, from the caller's `send` to its answer (every retry of the SDK
 * included, so it is what the request waited), and records its service, operation, duration, outcome
 * (`ok` or the error's name) and attempts with `recordAwsCall`. It reads the names from the SDK's
 * context and the attempts from the answer's metadata: never a request or response payload.
 */
export const callTiming: Pluggable<object, object> = {
  applyToStack: (stack) =>
    stack.add(
      (next, context: HandlerExecutionContext) => async (args) => {
        const started = performance.now();
        const call = { awsService: shortName(context.clientName, 'Client'), operation: shortName(context.commandName, 'Command') };
        try {
          const result = await next(args);
          recordAwsCall({ ...call, durationMs: performance.now() - started, outcome: 'ok', attempts: attemptsOf(result.output) });
          return result;
        } catch (error) {
          const name = error instanceof Error ? error.name : 'Error';
          recordAwsCall({ ...call, durationMs: performance.now() - started, outcome: name, attempts: attemptsOf(error) });
          throw error;
        }
      },
      // First of all, so that the time covers every other middleware, the retries among them.
      { step: 'initialize', priority: 'high', name: 'callTiming' },
    ),
};
