import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Readable } from 'node:stream';
import type { DeserializeHandlerOutput, DeserializeMiddleware } from '@smithy/types';
import type { ClientPlugin } from '../../shared/adapters/clients/client-options';
import { answerJson } from './kernel/gateway-port';

/**
 * A local-stack seam for tests of the mail queue's retries (docs/local-stack.md#the-local-sqs-queues):
 * the next `times` `SendEmail` calls to a recipient fail with SES's HTTP 500, answered between the SDK
 * and the network, so the SDK's retries and the product's handling are AWS's.
 */
const outages = new Map<string, number>();

/** Takes one armed failure for one of `recipients`, if any is armed. */
function takeOutage(recipients: string[]): boolean {
  const recipient = recipients.map((address) => address.toLowerCase()).find((address) => outages.has(address));
  if (recipient === undefined) return false;
  const left = outages.get(recipient)!;
  if (left <= 1) outages.delete(recipient);
  else outages.set(recipient, left - 1);
  return true;
}

export function sesOutagePlugin(): ClientPlugin {
  const fail: DeserializeMiddleware<object, object> = (next, context) => async (args) => {
    const input = (args as { input?: { Destination?: { ToAddresses?: string[] } } }).input;
    if (context.clientName !== 'SESv2Client' || context.commandName !== 'SendEmailCommand' || !takeOutage(input?.Destination?.ToAddresses ?? [])) return next(args);
    const headers = { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalFailure', 'x-amzn-requestid': randomUUID() };
    const body = Readable.from([Buffer.from(JSON.stringify({ message: 'Local SES outage armed for this recipient' }))]);
    return { response: { statusCode: 500, reason: 'Internal Server Error', headers, body } } as DeserializeHandlerOutput<object>;
  };
  return {
    applyToStack(stack) {
      stack.add(fail, { step: 'deserialize', priority: 'low', name: 'localSesOutage', override: true });
    },
  };
}

/** Answers `POST /_local/outages` on the SES emulator's server; every other request goes to the emulator. */
export function routeSesOutages(server: Server): void {
  const emulator = server.listeners('request') as ((...args: unknown[]) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request, response) => {
    const url = new URL(request.url ?? '/', 'http://local');
    if (url.pathname !== '/_local/outages') return emulator.forEach((listener) => listener(request, response));
    const address = url.searchParams.get('address');
    const times = Number(url.searchParams.get('times') ?? '1');
    if (request.method !== 'POST' || !address || !Number.isInteger(times) || times < 0) {
      return answerJson(response, 400, { message: 'POST /_local/outages?address=<e-mail>&times=<whole number, 0 disarms>' });
    }
    if (times > 0) outages.set(address.toLowerCase(), times);
    else outages.delete(address.toLowerCase());
    response.writeHead(204).end();
  });
}
