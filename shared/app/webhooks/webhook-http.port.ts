import { DELIVERY_TIMEOUT_MS as ATTEMPT_TIMEOUT_MS, postJson, type PostOutcome } from '../../adapters/http/outbound-http';
import { AddressRefused, allowedAddresses, checkUrlShape } from '../../adapters/http/outbound-address';

/**
 * Port: how a webhook reaches its receiver under the outbound rules (docs/api/events.md#safe-outbound-calls),
 * bound here to the outbound HTTP client.
 */
export interface WebhookHttp {
  /** A receiver's URL checked: its shape, then every address its host resolves to; throws `AddressRefused` naming the rule broken. */
  checkReceiver(raw: string, allowLoopbackHttp: boolean): Promise<URL>;
  /** POSTs one delivery's JSON body. Never throws: the outcome says what became of it. */
  post(url: URL, headers: Record<string, string>, body: string, options: { allowLoopbackHttp: boolean }): Promise<PostOutcome>;
}

export { AddressRefused };

/** How long one attempt may take, its host's resolution included. */
export const DELIVERY_TIMEOUT_MS = ATTEMPT_TIMEOUT_MS;

export const webhookHttp: WebhookHttp = {
  checkReceiver: async (raw, allowLoopbackHttp) => {
    const url = checkUrlShape(raw, allowLoopbackHttp);
    await allowedAddresses(url, allowLoopbackHttp);
    return url;
  },
  post: postJson,
};
