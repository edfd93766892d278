import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { defaultRouteGroup, type ResourceGroup, type Route } from '../../shared/edge/api/routes';
import { answer, ANSWERS, answerStarting, HTTP_API_LIMITS, readBody, toResponse, withGatewayTimeouts, write } from './kernel/gateway-answers';
import { toEvent } from './gateway-event';
import { defaultLog, errorType, FunctionTimeoutError, functionTimeoutMs, invokeOnce, type LocalLog } from './invoke';
import { compileRoutes } from './route-match';

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A 500, or the connection cut when the answer has begun. */
const answerFailed = (response: ServerResponse) => (response.headersSent ? response.destroy() : answer(response, ANSWERS.internalError));

/** A Lambda handler as the functions export it. */
export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export interface GatewayOptions {
  /** API Gateway's integration timeout; 30 s unless a test shortens it. */
  integrationTimeoutMs?: number;
  /** Each function's timeout; by default the CDK stack's (`functionTimeoutMs`). */
  functionTimeoutMs?: (group: ResourceGroup) => number;
  /** Where the gateway writes what it did instead of the function (stderr by default). */
  log?: LocalLog;
  /** Whether the stack behind the gateway is ready: until it is, every request is answered `startingAnswer`. */
  ready?: () => boolean;
  /** A function's init: its handler module loaded (into `handlers`) before the timers start, as Lambda does not count it. */
  initialize?: (group: ResourceGroup) => Promise<void>;
}

/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0) under its and Lambda's rules
 * (docs/local-stack.md#api-gateway-rules-on-the-local-gateway); an unmatched request goes to the
 * `$default` route's group, as in the cloud.
 */
export function createGateway(routes: Route[], handlers: Record<ResourceGroup, LambdaHandler>, options: GatewayOptions = {}): Server {
  return withGatewayTimeouts(createServer(gatewayListener(routes, handlers, options)));
}

/** The gateway's request listener (`createGateway` is a server with it). */
export function gatewayListener(routes: Route[], handlers: Record<ResourceGroup, LambdaHandler>, options: GatewayOptions = {}): RequestListener {
  const compiled = compileRoutes(routes);
  // The first route of each key, as a search of the table from its start would find it.
  const groupOf = new Map<string, ResourceGroup>();
  for (const route of [...routes].reverse()) groupOf.set(route.routeKey, route.group);
  const integrationTimeoutMs = options.integrationTimeoutMs ?? HTTP_API_LIMITS.integrationTimeoutMs;
  const timeoutOf = options.functionTimeoutMs ?? functionTimeoutMs;
  const log = options.log ?? defaultLog;

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request, HTTP_API_LIMITS.requestBytes);
    if (body === undefined) return answer(response, ANSWERS.tooLarge);
    const event = toEvent(request, body, compiled);
    const group = groupOf.get(event.routeKey) ?? defaultRouteGroup;
    const where = { source: 'local-gateway', function: group, routeKey: event.routeKey, requestId: event.requestContext.requestId };
    /** Logs what the gateway did instead of the function, and answers as API Gateway does. */
    const refuse = (level: 'WARN' | 'ERROR', answered: (typeof ANSWERS)[keyof typeof ANSWERS], message: string, details: Record<string, unknown> = {}) => {
      log({ level, ...where, ...details, message });
      answer(response, answered);
    };

    const payloadBytes = Buffer.byteLength(JSON.stringify(event));
    if (payloadBytes > HTTP_API_LIMITS.invokeRequestBytes) {
      return refuse('WARN', ANSWERS.tooLarge, `the event is over Lambda's ${HTTP_API_LIMITS.invokeRequestBytes}-byte invocation payload: 413 without invoking`, { payloadBytes });
    }
    if (options.initialize) {
      try {
        await options.initialize(group);
      } catch (error) {
        return refuse('ERROR', ANSWERS.internalError, "the function's module failed to load: 500", { errorType: errorType(error), errorMessage: errorMessage(error) });
      }
    }
    const timeoutMs = timeoutOf(group);
    const { attempt, running } = invokeOnce(group, handlers[group], event, { timeoutMs });
    // A timer cleared after the answer (an aborted timers/promises delay costs an AbortError with its stack on every request).
    let timer: NodeJS.Timeout | undefined;
    const integrationTimeout = new Promise<'integration-timeout'>((resolve) => (timer = setTimeout(resolve, integrationTimeoutMs, 'integration-timeout')));
    const outcome = await Promise.race([attempt, integrationTimeout]);
    clearTimeout(timer);

    if (outcome === 'integration-timeout' || (!outcome.ok && outcome.error instanceof FunctionTimeoutError)) {
      // Lambda would stop a timed-out function; here the handler keeps running in this process.
      const started = Date.now();
      const ended = (how: string) => () => log({ level: 'WARN', ...where, afterMs: Date.now() - started, message: `the handler the gateway gave up on has now ${how}` });
      running.then(ended('finished'), ended('failed'));
    }
    if (outcome === 'integration-timeout') {
      return refuse('WARN', ANSWERS.unavailable, `integration timeout after ${integrationTimeoutMs} ms: 503; the handler keeps running in this process`);
    }
    if (!outcome.ok) {
      // As Lambda's runtime logs an "Invoke Error" in the function's log.
      const { error, awsRequestId } = outcome;
      const details = { awsRequestId, errorType: errorType(error), errorMessage: errorMessage(error) };
      if (!(error instanceof FunctionTimeoutError)) return refuse('ERROR', ANSWERS.internalError, 'function error: 500', details);
      return refuse('WARN', ANSWERS.internalError, `the function ran past its ${timeoutMs} ms timeout: 500; the handler keeps running in this process`, details);
    }
    const resultBytes = Buffer.byteLength(JSON.stringify(outcome.result ?? null));
    if (resultBytes > HTTP_API_LIMITS.invokeResponseBytes) {
      return refuse('ERROR', ANSWERS.internalError, `the result is over Lambda's ${HTTP_API_LIMITS.invokeResponseBytes}-byte response payload: 500`, { resultBytes });
    }
    const result = toResponse(outcome.result);
    if (!result) return refuse('ERROR', ANSWERS.internalError, 'the result is not a payload 2.0 response (statusCode): 500');
    try {
      write(response, result);
    } catch (error) {
      // Node refused a header or status of the result: API Gateway would not send it either.
      log({ level: 'ERROR', ...where, errorType: errorType(error), message: 'the result has a header API Gateway cannot send: 500' });
      answerFailed(response);
    }
  }

  return (request, response) => {
    if (options.ready && !options.ready()) return answerStarting(request, response);
    serve(request, response).catch((error: unknown) => {
      if (response.destroyed || request.destroyed) return; // the client went away
      log({ level: 'ERROR', source: 'local-gateway', errorType: errorType(error), message: 'the local gateway itself failed: 500' });
      answerFailed(response);
    });
  };
}
