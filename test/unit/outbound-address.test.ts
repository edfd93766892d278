import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { postJson } from '../../shared/adapters/http/outbound-http';
import { AddressRefused, allowedAddresses, checkUrlShape, dnsResolver, isPublicAddress, type Resolver } from '../../shared/adapters/http/outbound-address';

/** The outbound rules of webhook deliveries: which addresses a receiver may have, how a refusal reads, how long a name may take to resolve. */

const answering =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
const neverAnswering: Resolver = () => new Promise(() => undefined);

const refusal = async (url: string, resolve?: Resolver, timeoutMs?: number) => {
  const error = await allowedAddresses(new URL(url), false, { resolve, timeoutMs }).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(AddressRefused);
  return (error as AddressRefused).message;
};

describe('which addresses are public', () => {
  test.each([
    ['::a9fe:a9fe', 'IPv4-compatible IPv6 (::/96) carrying the metadata address'],
    ['::169.254.169.254', 'the same, written with its IPv4 part'],
    ['::8.8.8.8', 'IPv4-compatible IPv6 carrying a public address: the range is refused whole'],
    ['::0.0.0.2', 'the bottom of ::/96'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata address'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private address'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 (RFC 6052)'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['169.254.169.254', 'link-local (metadata)'],
    ['10.1.2.3', 'private'],
    ['127.0.0.1', 'loopback'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0x7f.1', 'an IPv4 address not in dotted-quad form'],
    ['example.com', 'not an address'],
  ])('%s is refused (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each(['93.184.215.14', '2606:4700::1111', '::ffff:93.184.215.14'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('a refusal names the rule, never the address a host resolved to', () => {
  test.each([
    ['10.20.30.40'],
    ['169.254.169.254'],
    ['::a9fe:a9fe'],
    ['93.184.215.14', '192.168.7.9'],
  ])('a host resolving to %s', async (...addresses) => {
    const message = await refusal('https://hooks.example.com/in', answering(...addresses));
    expect(message).toBe('The host hooks.example.com resolves to a private, loopback, link-local or reserved address: webhooks reach public addresses only');
    for (const address of addresses) expect(message).not.toContain(address);
  });

  test('a URL whose host is an IPv4-compatible IPv6 address', async () => {
    expect(await refusal('https://[::a9fe:a9fe]/latest/meta-data')).toBe(
      "The URL's address is a private, loopback, link-local or reserved address: webhooks reach public addresses only",
    );
  });

  test('localhost names are loopback whatever a resolver says', async () => {
    expect(await refusal('https://localhost/hook', answering('93.184.215.14'))).toMatch(/^The host localhost resolves to a private, loopback/);
    expect(await refusal('https://api.localhost./hook', answering('93.184.215.14'))).toMatch(/resolves to a private, loopback/);
  });

  test('a public host is allowed, with every address it has', async () => {
    await expect(allowedAddresses(new URL('https://hooks.example.com/in'), false, { resolve: answering('93.184.215.14', '2606:4700::1111') })).resolves.toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });
});

describe('the ports an outbound call may reach', () => {
  const portRule = "The URL's port must be 443 or 8443 (or none): outbound calls reach those ports only";

  test.each(['https://hooks.example.com/in', 'https://hooks.example.com:443/in', 'https://hooks.example.com:8443/in', 'https://[2606:4700::1111]:8443/in'])(
    '%s is allowed',
    async (url) => {
      expect(checkUrlShape(url, false).toString()).toBe(new URL(url).toString());
      await expect(allowedAddresses(new URL(url), false, { resolve: answering('93.184.215.14') })).resolves.not.toHaveLength(0);
    },
  );

  test.each(['https://hooks.example.com:8080/in', 'https://hooks.example.com:22/', 'https://93.184.215.14:6379/', 'https://hooks.example.com:80/', 'https://hooks.example.com:444/'])(
    '%s is refused, naming the rule, before the host is resolved',
    async (url) => {
      expect(() => checkUrlShape(url, false)).toThrow(new AddressRefused(portRule));
      let asked = false;
      const resolve: Resolver = async () => {
        asked = true;
        return [{ address: '93.184.215.14', family: 4 }];
      };
      expect(await refusal(url, resolve)).toBe(portRule);
      expect(asked).toBe(false);
    },
  );

  test('plain http to a public host is held to the rule too (port 80)', async () => {
    expect(await refusal('http://hooks.example.com/in', answering('93.184.215.14'))).toBe(portRule);
  });

  test("the local stack's loopback receiver may use any port; https to loopback on an allowed port is still loopback", async () => {
    expect(checkUrlShape('http://127.0.0.1:8080/hook', true).port).toBe('8080');
    await expect(allowedAddresses(new URL('http://127.0.0.1:8080/hook'), true)).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(() => checkUrlShape('http://127.0.0.1:8080/hook', false)).toThrow(/must be https/);
    expect(await refusal('https://127.0.0.1:8443/hook')).toMatch(/private, loopback/);
  });
});

describe('a name that does not resolve in time is refused', () => {
  test('a resolver that never answers is given up after its timeout', async () => {
    expect(await refusal('https://slow.example.com/in', neverAnswering, 50)).toBe('The host slow.example.com did not resolve within 0.05 s: check its name servers');
  });

  describe('the DNS resolver, against a name server that never answers', () => {
    let silent: Socket;
    let asked = 0;
    beforeAll(async () => {
      silent = createSocket('udp4');
      silent.on('message', () => asked++);
      await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    });
    afterAll(() => silent.close());

    test('its question reaches the server, and the check gives up within its own timeout', async () => {
      const resolve = dnsResolver([`127.0.0.1:${(silent.address() as AddressInfo).port}`]);
      expect(await refusal('https://hooks.example.com/in', resolve, 200)).toMatch(/did not resolve within 0\.2 s/);
      expect(asked).toBeGreaterThan(0);
    });
  });

  test("a delivery attempt whose host's name servers never answer ends within the attempt's time, as a refused address", async () => {
    const outcome = await postJson(new URL('https://hooks.example.com/in'), {}, '{}', { allowLoopbackHttp: false, resolve: neverAnswering, timeoutMs: 100 });
    expect(outcome).toMatchObject({ ok: false, status: null, failure: 'refused-address', detail: 'The host hooks.example.com did not resolve within 0.1 s: check its name servers' });
  });
});
