import { Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { MAX_URL_LENGTH } from '../../kernel/url-limits';
import { requireLazily } from '../../kernel/lazy';

/**
 * Where a webhook may point (docs/api/events.md#safe-outbound-calls): an `https` URL on port 443 or
 * 8443 whose host resolves only to public unicast addresses. Checked when a subscription is created or changed and
 * again before every delivery, on the addresses the request then connects to, so a name that
 * resolves elsewhere later (DNS rebinding) is refused too. A refusal names the rule, never the
 * address a host resolved to: the answer must not tell a caller what lies behind a name.
 */


/** The one exception, for a stack on a laptop: `http://127.0.0.1:<port>` when configured. */
export const LOOPBACK_RECEIVER_HOST = '127.0.0.1';

/**
 * The ports an outbound call may reach: https's own and its common alternative. Any other port of a
 * public host (a database, a mail server, an admin console) is nobody's receiver, and reaching it
 * would let a caller probe what listens there.
 */
export const OUTBOUND_PORTS: readonly number[] = [443, 8443];

/** How long a host's name may take to resolve, within an attempt's time limit. */
export const DNS_TIMEOUT_MS = 3_000;

/** A resolved address a request may connect to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Why a URL or its addresses are refused, in words an integrator can act on. */
export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

/** Resolves a host name to every address it has; `signal` aborts when the resolution's time is up. */
export type Resolver = (hostname: string, signal: AbortSignal) => Promise<CheckedAddress[]>;

/**
 * A resolver that asks DNS servers directly (c-ares: `servers`, or the system's), for A and AAAA
 * records, and gives up on abort. Not `dns.lookup`: it runs on libuv's few threads and cannot be
 * cancelled, so a slow name server of one receiver would hold up every other receiver's lookups.
 */
export function dnsResolver(servers?: readonly string[]): Resolver {
  return async (hostname, signal) => {
    const resolver = new DnsResolver({ timeout: DNS_TIMEOUT_MS, tries: 1 });
    if (servers) resolver.setServers([...servers]);
    signal.addEventListener('abort', () => resolver.cancel(), { once: true });
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses: CheckedAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
    return addresses;
  };
}

export const systemResolver: Resolver = dnsResolver();

/**
 * ipaddr.js, loaded by the first address checked: of the users function's routes, only a subscription's
 * creation and change check one. A package left out of the functions' bundles (its own file in the
 * functions that load it: docs/decisions/lighter-functions.md).
 */
const ipaddrLib = /* @__PURE__ */ requireLazily<typeof ipaddr>('ipaddr.js', () => require('ipaddr.js')); // eslint-disable-line @typescript-eslint/no-require-imports -- a lazy load, on purpose

/**
 * An address as ipaddr.js reads it right: IPv6 in hexadecimal groups, since ipaddr.js takes any
 * `::a.b.c.d` for an IPv4-mapped address, while `::a.b.c.d` is IPv4-compatible (`::/96`).
 */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const family = isIP(address);
  const { IPv4, IPv6 } = ipaddrLib();
  if (family === 4) return IPv4.isValidFourPartDecimal(address) ? IPv4.parse(address) : undefined;
  if (family !== 6) return undefined;
  return IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
}

/**
 * Whether an address is public unicast: not private, loopback, link-local (cloud metadata),
 * multicast, reserved, nor a v4 one in v6 clothing (mapped `::ffff:0:0/96` is judged as the IPv4
 * address it carries; compatible `::/96`, deprecated and routed nowhere in particular, is refused).
 */
export function isPublicAddress(address: string): boolean {
  const ip = parsed(address);
  if (!ip) return false;
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
    if (v6.parts.slice(0, 6).every((part) => part === 0)) return false;
  }
  return ip.range() === 'unicast';
}

const bracketless = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

const isLoopbackReceiver = (url: URL, allowLoopbackHttp: boolean) => allowLoopbackHttp && url.protocol === 'http:' && url.hostname === LOOPBACK_RECEIVER_HOST;

/** The port rule: 443 or 8443, any port of the loopback receiver when allowed. Throws `AddressRefused`. */
function checkPort(url: URL, allowLoopbackHttp: boolean): void {
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (isLoopbackReceiver(url, allowLoopbackHttp) || OUTBOUND_PORTS.includes(port)) return;
  throw new AddressRefused(`The URL's port must be ${OUTBOUND_PORTS.join(' or ')} (or none): outbound calls reach those ports only`);
}

/** The URL rules that need no resolution: length, scheme, port, no credentials. Throws `AddressRefused`. */
export function checkUrlShape(raw: string, allowLoopbackHttp: boolean): URL {
  if (raw.length > MAX_URL_LENGTH) throw new AddressRefused(`The URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AddressRefused('The URL is not an absolute URL');
  }
  if (url.username || url.password) throw new AddressRefused('The URL must not carry credentials: authenticate the deliveries by their signature');
  if (url.protocol !== 'https:' && !isLoopbackReceiver(url, allowLoopbackHttp)) {
    throw new AddressRefused(
      allowLoopbackHttp ? `The URL must be https (or http://${LOOPBACK_RECEIVER_HOST}:<port> on this local stack)` : 'The URL must be https',
    );
  }
  checkPort(url, allowLoopbackHttp);
  return url;
}

/** Names that are loopback by definition (RFC 6761), whatever a resolver answers for them. */
const isLocalhostName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

const notPublic = (rule = 'webhooks reach public addresses only') => `a private, loopback, link-local or reserved address: ${rule}`;

/** Resolves within `timeoutMs`, cancelling the resolution when the time is up. */
async function resolveWithin(resolve: Resolver, host: string, timeoutMs: number): Promise<CheckedAddress[]> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new AddressRefused(`The host ${host} did not resolve within ${timeoutMs / 1000} s: check its name servers`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      resolve(host, controller.signal).catch(() => {
        throw new AddressRefused(`The host ${host} does not resolve: check its name`);
      }),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface AddressOptions {
  resolve?: Resolver;
  /** How long the host's resolution may take (`DNS_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** The rule a refusal names, for a caller other than webhooks ("webhooks reach public addresses only"). */
  rule?: string;
}

/**
 * The addresses a request to `url` may connect to: all of the host's, each public, on an allowed port,
 * or the loopback receiver's when allowed. Throws `AddressRefused` naming the rule broken (never the address).
 */
export async function allowedAddresses(url: URL, allowLoopbackHttp: boolean, options: AddressOptions = {}): Promise<CheckedAddress[]> {
  const host = bracketless(url.hostname);
  if (isLoopbackReceiver(url, allowLoopbackHttp)) return [{ address: host, family: 4 }];
  // Again here: a URL stored before the rule, or one a caller built, is held to it on every call.
  checkPort(url, allowLoopbackHttp);
  const literal = isIP(host);
  if (literal !== 0) {
    if (!isPublicAddress(host)) throw new AddressRefused(`The URL's address is ${notPublic(options.rule)}`);
    return [{ address: host, family: literal === 6 ? 6 : 4 }];
  }
  if (isLocalhostName(host)) throw new AddressRefused(`The host ${host} resolves to ${notPublic(options.rule)}`);
  const addresses = await resolveWithin(options.resolve ?? systemResolver, host, options.timeoutMs ?? DNS_TIMEOUT_MS);
  if (addresses.length === 0) throw new AddressRefused(`The host ${host} does not resolve: check its name`);
  if (!addresses.every(({ address }) => isPublicAddress(address))) throw new AddressRefused(`The host ${host} resolves to ${notPublic(options.rule)}`);
  return addresses;
}
