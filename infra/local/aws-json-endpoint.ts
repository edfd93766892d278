import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readBody } from './kernel/gateway-answers';
import { answerJson } from './kernel/gateway-port';
import { parseJson } from './kernel/parse-json';

/** The local stack's own endpoints of AWS's JSON protocol (its KMS and EventBridge): the request handling they share. */

/** A refusal as the service answers it: HTTP 400 with `{ __type, message }`. */
export class AwsJsonError extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
  }
}

export interface AwsJsonEndpoint {
  /** Operations by `X-Amz-Target`, each given the request's JSON body. */
  operations: Record<string, (input: Record<string, unknown>) => unknown>;
  /** The largest body read; a larger one is read as empty (the operations check sizes themselves otherwise). */
  maxBodyBytes: number;
  /** The messages of the answers to an unknown operation and to a body that is not JSON. */
  unknownOperation: string;
  notJson: string;
  /** The `__type` and message of a 500. */
  internalError: [type: string, message: string];
  /** The endpoint's own requests (no AWS operation): true when answered. */
  local?(request: IncomingMessage, response: ServerResponse, body: string): boolean;
  /** Whether an armed fault cuts this call: it runs, but its connection is closed without an answer. */
  cut?(input: Record<string, unknown>): boolean;
}

export const answerAwsJson = (response: ServerResponse, status: number, body: unknown) => answerJson(response, status, body, 'application/x-amz-json-1.1');

export function awsJsonServer(endpoint: AwsJsonEndpoint): Server {
  const refuse = (response: ServerResponse, type: string, message: string) => answerAwsJson(response, 400, { __type: type, message });
  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const body = ((await readBody(request, endpoint.maxBodyBytes)) ?? Buffer.alloc(0)).toString('utf8');
    if (endpoint.local?.(request, response, body)) return;
    const operation = endpoint.operations[String(request.headers['x-amz-target'] ?? '')];
    if (request.method !== 'POST' || !operation) return refuse(response, 'UnknownOperationException', endpoint.unknownOperation);
    const input = parseJson(body || '{}') as Record<string, unknown> | undefined;
    if (input === undefined) return refuse(response, 'SerializationException', endpoint.notJson);
    const cut = endpoint.cut?.(input) ?? false;
    let answer: [status: number, body: unknown];
    try {
      answer = [200, operation(input)];
    } catch (error) {
      if (!(error instanceof AwsJsonError)) throw error;
      answer = [400, { __type: error.type, message: error.message }];
    }
    if (cut) return void request.socket.destroy();
    answerAwsJson(response, ...answer);
  };
  return createServer((request, response) => {
    serve(request, response).catch(() => answerAwsJson(response, 500, { __type: endpoint.internalError[0], message: endpoint.internalError[1] }));
  });
}
