import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may point (docs/api/events.md#safe-outbound-calls): an `https` URL whose host
 * resolves only to public unicast addresses. Checked when a subscription is created or changed and
 * again before every delivery, on the addresses the request then connects to, so a name that
 * resolves elsewhere later (DNS rebinding) is refused too.
 */

export const MAX_URL_LENGTH = 2048;

/** The one exception, for a stack on a laptop: `http://127.0.0.1:<port>` when configured. */
export const LOOPBACK_RECEIVER_HOST = '127.0.0.1';

/** A resolved address a request may connect to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Why a URL or its addresses are refused, in words an integrator can act on. */
export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

/** Resolves a host name to every address it has (the system resolver, as a connection would). */
export type Resolver = (hostname: string) => Promise<CheckedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** Whether an address is public unicast: not private, loopback, link-local (cloud metadata), multicast, reserved, nor a v4 one in v6 clothing. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  return ipaddr.process(address).range() === 'unicast';
}

const bracketless = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** The URL rules that need no resolution: length, scheme, no credentials. Throws `AddressRefused`. */
export function checkUrlShape(raw: string, allowLoopbackHttp: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw new AddressRefused(`The URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AddressRefused('The URL is not an absolute URL');
  }
  if (url.username || url.password) throw new AddressRefused('The URL must not carry credentials: authenticate the deliveries by their signature');
  const loopbackReceiver = allowLoopbackHttp && url.protocol === 'http:' && url.hostname === LOOPBACK_RECEIVER_HOST;
  if (url.protocol !== 'https:' && !loopbackReceiver) {
    throw new AddressRefused(
      allowLoopbackHttp ? `The URL must be https (or http://${LOOPBACK_RECEIVER_HOST}:<port> on this local stack)` : 'The URL must be https',
    );
  }
  return url;
}

/**
 * The addresses a request to `url` may connect to: all of the host's, each public, or the loopback
 * receiver's when allowed. Throws `AddressRefused` naming the first address refused.
 */
export async function allowedAddresses(url: URL, allowLoopbackHttp: boolean, resolve: Resolver = systemResolver): Promise<CheckedAddress[]> {
  const host = bracketless(url.hostname);
  if (allowLoopbackHttp && url.protocol === 'http:' && host === LOOPBACK_RECEIVER_HOST) return [{ address: host, family: 4 }];
  let addresses: CheckedAddress[];
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new AddressRefused(`The host ${host} does not resolve: check its name`);
    }
  }
  if (addresses.length === 0) throw new AddressRefused(`The host ${host} does not resolve: check its name`);
  const refused = addresses.find(({ address }) => !isPublicAddress(address));
  if (refused) {
    throw new AddressRefused(
      `The host ${host} resolves to ${refused.address}, a private, loopback, link-local or reserved address: webhooks reach public addresses only`,
    );
  }
  return addresses;
}
