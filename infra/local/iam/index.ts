import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DeserializeHandlerOutput, DeserializeMiddleware, HandlerExecutionContext, InitializeHandlerOutput, InitializeMiddleware } from '@smithy/types';
import type { ResourceGroup } from '../../../shared/edge/api/routes';
import { addClientPlugin, type ClientPlugin } from '../../../shared/adapters/clients/client-options';
import { currentFunction } from '../kernel/function-context';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../kernel/local-account';
import { keptReport } from '../kernel/write-whole';
import { loadTemplate, type TemplateSource } from '../synth/template-source';
import { resolvePolicies } from '../template/template-policies';
import { IamRecorder, reportSummary, type IamReport } from './iam-report';
import { accessDeniedMessage, RoleChecker, type CallDecision, type Verdict } from './role-checker';
import type { SdkCall } from './sdk-requests';
import { allowListed, unexercisedGrants } from './unexercised-grants';

/** Each AWS SDK call a function makes is checked against its role in the template (docs/local-stack.md#local-iam-enforcement). */

export interface LocalIamOptions {
  /** Where `iam-report.json` and `iam-report.txt` are written (every few seconds and on exit); none without it. */
  reportDir?: string;
  /** The synthesized template's extract; loaded here when not given. */
  template?: Promise<TemplateSource>;
}

export type LocalIam = ReturnType<typeof startLocalIam>;

let enabled: LocalIam | undefined;

/** Turns local IAM on in this process, once, before the handler modules are imported; a call waits for the policies. */
export const enableLocalIam = (options: LocalIamOptions = {}): LocalIam => (enabled ??= startLocalIam(options));

function startLocalIam(options: LocalIamOptions) {
  const recorder = new IamRecorder();
  let source: TemplateSource | undefined;
  const loading = (options.template ?? loadTemplate()).then((loaded) => (source = loaded));
  loading.catch(() => undefined);

  let resolution: Record<string, string | undefined> | undefined;
  let checker: RoleChecker | undefined;
  const checkerNow = (): RoleChecker | undefined => {
    if (!checker && source) {
      const env = resolution ?? process.env;
      checker = new RoleChecker(resolvePolicies(source.policies, { account: LOCAL_ACCOUNT_ID, region: LOCAL_REGION, env }));
    }
    return checker;
  };

  const report = (): IamReport | undefined => {
    const current = checkerNow();
    if (!current || !source) return undefined;
    return recorder.report({ policies: current.policies, synthesized: source.synthesized, loadMs: source.ms, stats: current.stats });
  };

  const { reportDir } = options;
  const files = () => {
    const current = reportDir ? report() : undefined;
    if (!current || !reportDir) return undefined;
    const note = (group: Parameters<typeof allowListed>[1], action: string) => allowListed(unexercisedGrants, group, action)?.reason;
    return { [join(reportDir, 'iam-report.json')]: JSON.stringify(current, null, 2), [join(reportDir, 'iam-report.txt')]: reportSummary(current, note) };
  };
  const kept = keptReport('the local IAM report', files);

  const decide = async (group: ResourceGroup, call: SdkCall) => {
    await loading;
    return checkerNow()!.decide(group, call);
  };
  addClientPlugin(localIamPlugin(decide, (decision, kind) => {
    recorder.record(decision, kind);
    kept.changed();
  }));

  return {
    /** Settles when the roles' policies are loaded (from the cache, or synthesized); rejects if they cannot be. */
    ready: loading.then(() => undefined),
    /** What was checked so far; undefined before the policies are loaded. */
    report,
    /** Writes the report files now (when a report directory was given). */
    writeReport: kept.write,
    /** The environment the template's references resolve against (else `process.env` at the first check); call it before any function runs. */
    resolveWith: (env: Record<string, string | undefined>) => void (resolution = env),
  };
}

/**
 * The first step decides (before anything is serialized); the last, before the network, answers a refused
 * call with AWS's own HTTP response, so the SDK raises the very error it raises in AWS. A presigned URL is
 * recorded with the verdict its later request gets in AWS, and made either way, as in AWS.
 */
function localIamPlugin(decideCall: (group: ResourceGroup, call: SdkCall) => Promise<CallDecision>, record: (decision: CallDecision, kind: 'call' | 'presigned-url') => void): ClientPlugin {
  /** Each call's decision, and whether it went past the serializer towards the service. */
  const states = new WeakMap<HandlerExecutionContext, { decision: CallDecision; sent: boolean }>();

  const decide: InitializeMiddleware<object, object> = (next, context) => async (args) => {
    const group = currentFunction();
    if (!group) return next(args);
    const call = { clientName: context.clientName ?? '', commandName: context.commandName ?? '', input: args.input as Record<string, unknown> };
    const state = { decision: await decideCall(group, call), sent: false };
    if (state.decision.error) {
      record(state.decision, 'call');
      throw state.decision.error;
    }
    states.set(context, state);
    let result: InitializeHandlerOutput<object> | undefined;
    try {
      result = await next(args);
      return result;
    } finally {
      const presigned = !state.sent && typeof (result?.output as { presigned?: unknown } | undefined)?.presigned === 'object';
      if (state.sent || presigned) record(state.decision, state.sent ? 'call' : 'presigned-url');
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
