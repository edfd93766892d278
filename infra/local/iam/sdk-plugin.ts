import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type {
  DeserializeHandlerOutput,
  DeserializeMiddleware,
  HandlerExecutionContext,
  InitializeHandlerOutput,
  InitializeMiddleware,
} from '@smithy/types';
import type { ClientPlugin } from '../../../shared/adapters/clients/client-options';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { accessDeniedMessage, type CallDecision, type Verdict } from './role-checker';
import type { SdkCall } from './sdk-requests';

export interface LocalIamHooks {
  /** The function whose invocation is running; undefined outside any (set-up, seeding, tests' own calls). */
  currentFunction(): ResourceGroup | undefined;
  decide(group: ResourceGroup, call: SdkCall): Promise<CallDecision>;
  /** Called once per call that reached the service, or per presigned URL made. */
  record(decision: CallDecision, kind: 'call' | 'presigned-url'): void;
}

/**
 * The first step decides (before anything is serialized); the last, before the network, answers a refused
 * call with AWS's own HTTP response, so the SDK raises the very error it raises in AWS. A presigned URL is
 * recorded with the verdict its later request gets in AWS, and made either way, as in AWS.
 */
export function localIamPlugin(hooks: LocalIamHooks): ClientPlugin {
  /** Each call's decision, and whether it went past the serializer towards the service. */
  const states = new WeakMap<HandlerExecutionContext, { decision: CallDecision; sent: boolean }>();

  const decide: InitializeMiddleware<object, object> = (next, context) => async (args) => {
    const group = hooks.currentFunction();
    if (!group) return next(args);
    const call = { clientName: context.clientName ?? '', commandName: context.commandName ?? '', input: args.input as Record<string, unknown> };
    const state = { decision: await hooks.decide(group, call), sent: false };
    if (state.decision.error) {
      hooks.record(state.decision, 'call');
      throw state.decision.error;
    }
    states.set(context, state);
    let result: InitializeHandlerOutput<object> | undefined;
    try {
      result = await next(args);
      return result;
    } finally {
      const presigned = !state.sent && typeof (result?.output as { presigned?: unknown } | undefined)?.presigned === 'object';
      if (state.sent || presigned) hooks.record(state.decision, state.sent ? 'call' : 'presigned-url');
    }
  };

  const enforce: DeserializeMiddleware<object, object> = (next, context) => async (args) => {
    const state = states.get(context);
    if (!state) return next(args);
    state.sent = true;
    const { denied, principal } = state.decision;
    if (!denied) return next(args);
    const request = args.request as { method?: string; headers?: Record<string, string> };
    return { response: accessDeniedResponse(context.clientName ?? '', request, principal, denied) } as DeserializeHandlerOutput<object>;
  };

  return {
    applyToStack(stack) {
      stack.add(decide, { step: 'initialize', priority: 'high', name: 'localIamDecide', override: true });
      stack.add(enforce, { step: 'deserialize', priority: 'low', name: 'localIamEnforce', override: true });
    },
  };
}

/** AWS's own refusal, per protocol: JSON with `__type` (DynamoDB, Cognito, KMS), REST-JSON (SES v2), XML (S3). */
function accessDeniedResponse(clientName: string, request: { method?: string; headers?: Record<string, string> }, principal: string, denied: Verdict) {
  const requestId = randomUUID();
  const answer = (statusCode: number, headers: Record<string, string>, text: string) => ({
    statusCode,
    reason: statusCode === 403 ? 'Forbidden' : 'Bad Request',
    headers,
    body: Readable.from([Buffer.from(text)]),
  });
  if (clientName === 'S3Client') {
    const message = accessDeniedMessage(principal, denied, { quoteResource: true }).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
    const headers = { 'content-type': 'application/xml', 'x-amz-request-id': requestId, 'x-amz-id-2': requestId };
    // S3 answers a HEAD without a body.
    const xml =
      request.method === 'HEAD'
        ? ''
        : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${message}</Message><RequestId>${requestId}</RequestId><HostId>${requestId}</HostId></Error>`;
    return answer(403, headers, xml);
  }
  const message = accessDeniedMessage(principal, denied);
  if (clientName === 'SESv2Client') {
    return answer(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException', 'x-amzn-requestid': requestId }, JSON.stringify({ message }));
  }
  const headers = { 'content-type': request.headers?.['content-type'] ?? 'application/x-amz-json-1.1', 'x-amzn-requestid': requestId };
  const payload =
    clientName === 'DynamoDBClient' ? { __type: 'com.amazon.coral.service#AccessDeniedException', Message: message } : { __type: 'AccessDeniedException', message };
  return answer(400, headers, JSON.stringify(payload));
}
