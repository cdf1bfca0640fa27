import { BlockList, isIP } from 'node:net';

/** A range of addresses: one address (the whole length as prefix) or a CIDR block. */
export interface AddressRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * An address in one spelling, or undefined when `text` is none: IPv6 lower-case and compressed,
 * an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, how a dual-stack socket reports IPv4 peers) as
 * IPv4, and the port and brackets some proxies write (`10.0.0.1:5678`, `[2001:db8::1]:443`)
 * dropped. One spelling per address keeps one counter per client.
 */
export function canonicalAddress(text: string): string | undefined {
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) address = mapped[1]!;
  switch (isIP(address)) {
    case 4:
      return address;
    case 6:
      // A zone (`fe80::1%eth0`) names an interface of the sender, not a client here.
      return address.includes('%') ? undefined : new URL(`http://[${address}]`).hostname.slice(1, -1);
    default:
      return undefined;
  }
}

/** `10.0.0.0/8`, `2001:db8::/32` or a single address (no port); undefined when `text` is neither. */
export function parseAddressRange(text: string): AddressRange | undefined {
  const [addressText = '', prefixText, ...rest] = text.trim().split('/');
  // A mapped IPv4 address with a prefix would count it in IPv6 bits: refused as unclear.
  if (!isIP(addressText) || rest.length || (prefixText !== undefined && MAPPED_IPV4.test(addressText)))
    return undefined;
  const address = canonicalAddress(addressText);
  if (!address) return undefined;
  const family = address.includes(':') ? 'ipv6' : 'ipv4';
  const bits = family === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: bits, family };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined;
  return { address, prefix: Number(prefixText), family };
}

/** Whether an address (in its canonical spelling) lies in one of `ranges`. */
export function addressMatcher(ranges: readonly AddressRange[]): (address: string) => boolean {
  const list = new BlockList();
  for (const range of ranges) list.addSubnet(range.address, range.prefix, range.family);
  return (address) => list.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}
