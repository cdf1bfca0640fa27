import type { ProxyTrust } from '../config.ts';
import { addressMatcher, canonicalAddress } from '../core/ip-address.ts';

/** Whether the hop `index` steps from the service (0: the socket's peer) is a proxy of ours. */
export type TrustedHop = (address: string, index: number) => boolean;

export function trustedHop(trust: ProxyTrust): TrustedHop {
  switch (trust.kind) {
    case 'none':
      return () => false;
    case 'hops':
      return (_, index) => index < trust.hops;
    case 'list':
      return addressMatcher(trust.proxies);
  }
}

/**
 * The client's address. Each proxy appends the address it was called from to X-Forwarded-For,
 * and everything left of what our own proxies wrote is whatever the client sent, so the header is
 * read from the right: starting at the socket's peer, each hop that is one of our proxies
 * vouches for the entry before it, and the first hop that is not ours is the client. (Koa's
 * `proxy: true` takes the left-most entry, which the client writes itself: a fresh address per
 * request then escaped every per-address limit.) An entry that is no address ends the walk at the
 * proxy that passed it on. When every hop is ours, the left-most entry is the client.
 */
export function clientAddress(socketAddress: string, forwardedFor: string | undefined, trusted: TrustedHop): string {
  let client = canonicalAddress(socketAddress) ?? socketAddress;
  if (!forwardedFor || !trusted(client, 0)) return client;
  const entries = forwardedFor.split(',');
  for (let position = entries.length - 1, index = 1; position >= 0; position--, index++) {
    const entry = canonicalAddress(entries[position]!);
    if (!entry) return client;
    client = entry;
    if (!trusted(entry, index)) return client;
  }
  return client;
}
