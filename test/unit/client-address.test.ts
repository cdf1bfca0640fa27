import { describe, expect, it } from 'vitest';
import { loadConfig, type ProxyTrust } from '../../server/config.ts';
import { clientAddress, trustedHop } from '../../server/http/client-address.ts';

/** The client address of a request from `socket` carrying `forwardedFor`, under TRUST_PROXY settings. */
function client(env: NodeJS.ProcessEnv, socket: string, forwardedFor?: string): string {
  return clientAddress(socket, forwardedFor, trustedHop(loadConfig(env).trustProxy));
}

describe('the client address', () => {
  it('is the socket peer without TRUST_PROXY, whatever X-Forwarded-For says', () => {
    expect(client({}, '198.51.100.7', '203.0.113.1')).toBe('198.51.100.7');
    expect(client({ TRUST_PROXY: 'false' }, '::ffff:198.51.100.7', '203.0.113.1')).toBe('198.51.100.7');
  });

  describe('with TRUST_PROXY=true (hops)', () => {
    const oneHop = { TRUST_PROXY: 'true' };
    it('takes the entry our one proxy wrote, not the left-most one the client wrote', () => {
      expect(client(oneHop, '10.0.0.2', '1.2.3.4, 203.0.113.9')).toBe('203.0.113.9');
      expect(client(oneHop, '10.0.0.2', '203.0.113.9')).toBe('203.0.113.9');
      expect(client(oneHop, '10.0.0.2', ' 1.2.3.4 ,5.6.7.8,  203.0.113.9 ')).toBe('203.0.113.9');
    });

    it('skips TRUST_PROXY_HOPS proxies from the right', () => {
      const twoHops = { TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '2' };
      expect(client(twoHops, '10.0.0.2', '1.2.3.4, 203.0.113.9, 10.0.0.1')).toBe('203.0.113.9');
    });

    it('takes the socket peer without the header, and the left-most entry when there are fewer than the hops', () => {
      expect(client(oneHop, '203.0.113.9')).toBe('203.0.113.9');
      expect(client({ TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '3' }, '10.0.0.2', '203.0.113.9, 10.0.0.1')).toBe(
        '203.0.113.9',
      );
    });

    it('stops at the proxy that passed on an entry that is no address', () => {
      expect(client(oneHop, '10.0.0.2', '203.0.113.9, not-an-address')).toBe('10.0.0.2');
      expect(client(oneHop, '10.0.0.2', '203.0.113.9, ')).toBe('10.0.0.2');
    });

    it('writes an address one way: ports, brackets, case, mapped IPv4', () => {
      expect(client(oneHop, '10.0.0.2', '203.0.113.9:5678')).toBe('203.0.113.9');
      expect(client(oneHop, '10.0.0.2', '[2001:DB8:0:0::1]:443')).toBe('2001:db8::1');
      expect(client(oneHop, '10.0.0.2', '2001:DB8::1')).toBe('2001:db8::1');
      expect(client(oneHop, '10.0.0.2', '::ffff:203.0.113.9')).toBe('203.0.113.9');
    });
  });

  describe('with TRUST_PROXY as a list of proxies', () => {
    const list = { TRUST_PROXY: '10.0.0.0/8, 192.0.2.1, 2001:db8:ffff::/48' };
    it('walks from the right over our proxies to the first address that is not one', () => {
      expect(client(list, '10.0.0.2', '1.2.3.4, 203.0.113.9, 192.0.2.1, 10.9.9.9')).toBe('203.0.113.9');
      expect(client(list, '2001:db8:ffff::2', '1.2.3.4, 2001:db8:1::5')).toBe('2001:db8:1::5');
      expect(client(list, '::ffff:10.0.0.2', '1.2.3.4, 203.0.113.9')).toBe('203.0.113.9');
    });

    it('ignores the header from a peer that is not one of our proxies', () => {
      expect(client(list, '203.0.113.9', '1.2.3.4')).toBe('203.0.113.9');
      expect(client(list, '2001:db8:1::5', '1.2.3.4')).toBe('2001:db8:1::5');
    });

    it('takes the left-most entry when every hop is ours', () => {
      expect(client(list, '10.0.0.2', '10.0.0.7, 192.0.2.1')).toBe('10.0.0.7');
    });
  });
});

describe('TRUST_PROXY and TRUST_PROXY_HOPS', () => {
  const trust = (env: NodeJS.ProcessEnv): ProxyTrust => loadConfig(env).trustProxy;

  it('reads false, true with a hop count, and a list of addresses and ranges', () => {
    expect(trust({})).toEqual({ kind: 'none' });
    expect(trust({ TRUST_PROXY: 'off' })).toEqual({ kind: 'none' });
    expect(trust({ TRUST_PROXY: 'true' })).toEqual({ kind: 'hops', hops: 1 });
    expect(trust({ TRUST_PROXY: 'yes', TRUST_PROXY_HOPS: '2' })).toEqual({ kind: 'hops', hops: 2 });
    expect(trust({ TRUST_PROXY: '10.0.0.0/8,::1, ::ffff:192.0.2.1, 2001:DB8::/32' })).toEqual({
      kind: 'list',
      proxies: [
        { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { address: '::1', prefix: 128, family: 'ipv6' },
        { address: '192.0.2.1', prefix: 32, family: 'ipv4' },
        { address: '2001:db8::', prefix: 32, family: 'ipv6' },
      ],
    });
  });

  it.each([
    ['a host name', { TRUST_PROXY: 'proxy.internal' }, /TRUST_PROXY must be true, false or .* got "proxy.internal"/],
    ['a prefix too long', { TRUST_PROXY: '10.0.0.0/33' }, /got "10.0.0.0\/33"/],
    ['a prefix that is no number', { TRUST_PROXY: '2001:db8::/x' }, /got "2001:db8::\/x"/],
    ['an address with a port', { TRUST_PROXY: '10.0.0.1:80' }, /got "10.0.0.1:80"/],
    ['an empty entry', { TRUST_PROXY: '10.0.0.1,' }, /got ""/],
    ['a mapped address with a prefix', { TRUST_PROXY: '::ffff:10.0.0.0/104' }, /got "::ffff:10.0.0.0\/104"/],
    ['hops without TRUST_PROXY=true', { TRUST_PROXY_HOPS: '2' }, /TRUST_PROXY_HOPS applies only with TRUST_PROXY=true/],
    ['hops with a list', { TRUST_PROXY: '10.0.0.1', TRUST_PROXY_HOPS: '1' }, /TRUST_PROXY_HOPS applies only/],
    ['zero hops', { TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '0' }, /TRUST_PROXY_HOPS must be an integer between 1/],
  ])('refuses %s', (_, env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
