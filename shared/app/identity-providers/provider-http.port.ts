import { getDocument, postForm, type GetOutcome, type PostOptions } from '../../adapters/http/outbound-http';
import { AddressRefused, checkUrlShape, type Resolver } from '../../adapters/http/outbound-address';

/**
 * Port: how the realm reaches an organization's OpenID provider (its discovery document, its token
 * endpoint and keys) under the outbound rules (docs/api/events.md#safe-outbound-calls: https on port
 * 443 or 8443, public addresses checked after resolution, no redirects, a bounded read, a timeout),
 * bound here to the outbound HTTP client.
 */
export interface ProviderHttp {
  /** GETs a document, reading at most `maxBytes` of it. Never throws: the outcome says what failed. */
  getDocument(url: URL, headers: Record<string, string>, options: ProviderCallOptions): Promise<ProviderAnswer>;
  /** POSTs a form and reads the document it answers, as `getDocument` does. Never throws. */
  postForm(url: URL, headers: Record<string, string>, form: URLSearchParams, options: ProviderCallOptions): Promise<ProviderAnswer>;
}

export type ProviderCallOptions = PostOptions & { maxBytes: number };
export type ProviderAnswer = GetOutcome;
export type { Resolver };
/** The outbound rules' check of a URL's shape (`checkUrlShape(raw, allowLoopbackHttp)`: the URL, or `AddressRefused` naming the rule broken), before any call. */
export { AddressRefused, checkUrlShape };

export const providerHttp: ProviderHttp = { getDocument, postForm };
