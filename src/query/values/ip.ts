/**
 * Addresses (reference §5.7). IPv4 travels as an unsigned 32-bit number here; Carbon Black
 * stored it as a signed one (`remote_ip: -2080555708` is 131.253.61.68), so queries may write
 * either, and toSignedInt32/fromSignedInt32 convert for an index that keeps CB's form. IPv6 is
 * a 128-bit bigint. A query value becomes one or more inclusive [first, last] address ranges.
 */
import ipaddr from 'ipaddr.js';
import type { Invalid } from './invalid.js';

export interface Ipv4Range {
  readonly first: number;
  readonly last: number;
}

export interface Ipv6Range {
  readonly first: bigint;
  readonly last: bigint;
}


const TWO_32 = 2 ** 32;
const MAX_V4 = TWO_32 - 1;
const MAX_V6 = (1n << 128n) - 1n;
const INTEGER = /^[+-]?\d{1,10}$/u;

/** Four decimal octets without leading zeros (which some read as octal), as ipaddr.js's isValidFourPartDecimal. */
const DOTTED_QUAD = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/u;

/** Parsed by hand: the ingest path converts every connection's address. */
export function ipv4ToInt(dotted: string): number | undefined {
  const match = DOTTED_QUAD.exec(dotted);
  if (!match) return undefined;
  let value = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(match[i]);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function intToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export function toSignedInt32(unsigned: number): number {
  return unsigned | 0;
}

export function fromSignedInt32(signed: number): number {
  return signed >>> 0;
}

export function ipv6ToBigInt(text: string): bigint | undefined {
  if (!ipaddr.IPv6.isValid(text)) return undefined;
  return ipaddr.IPv6.parse(text).parts.reduce((sum, part) => (sum << 16n) | BigInt(part), 0n);
}

export function bigIntToIpv6(value: bigint): string {
  const parts = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((value >> shift) & 0xffffn));
  return new ipaddr.IPv6(parts).toRFC5952String();
}

/** Whether a query value is written as IPv6 (IPv6 under `ipaddr:` is searched as ipv6addr). */
export function looksLikeIpv6(value: string): boolean {
  return value.includes(':');
}

/**
 * One IPv4 query value: `10.0.1.1`, CIDR `192.168.0.0/16` (host bits ignored), a signed or
 * unsigned integer, or whole trailing octets as wildcards (`192.168.*`, `10.*.*.*`).
 */
export function parseIpv4Query(value: string): Ipv4Range | Invalid {
  const wildcard = /^((?:\d{1,3}\.){1,3})\*(?:\.\*)*$/u.exec(value);
  if (wildcard && value.split('.').length <= 4) {
    const octets = wildcard[1]!.slice(0, -1).split('.');
    return cidr4(`${[...octets, '0', '0', '0'].slice(0, 4).join('.')}`, octets.length * 8);
  }
  const [address = '', bits, extra] = value.split('/');
  if (extra !== undefined) return { invalid: 'An IPv4 address takes one /netmask' };
  const prefix = bits === undefined ? 32 : /^\d{1,2}$/u.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= 32)) return { invalid: 'An IPv4 netmask is 0 to 32' };
  if (INTEGER.test(address) && bits === undefined) {
    const single = integerAddress(address);
    return typeof single === 'number' ? { first: single, last: single } : single;
  }
  return cidr4(address, prefix);
}

function cidr4(address: string, prefix: number): Ipv4Range | Invalid {
  const base = ipv4ToInt(address);
  if (base === undefined) return { invalid: 'Expected an IPv4 address such as 10.0.1.1, 10.0.0.0/8 or -2080555708' };
  const size = 2 ** (32 - prefix);
  const first = Math.floor(base / size) * size;
  return { first, last: first + size - 1 };
}

function integerAddress(text: string): number | Invalid {
  const value = Number(text);
  if (value < -(2 ** 31) || value > MAX_V4) return { invalid: 'An IPv4 integer lies between -2147483648 and 4294967295' };
  return value < 0 ? value + TWO_32 : value;
}

/**
 * `ipaddr:[a TO b]`. Integer bounds are a range of Carbon Black's signed storage, so
 * `[-1 TO 1]` covers 255.255.255.255, 0.0.0.0 and 0.0.0.1 and `*` stops at ±2^31; when that
 * range is empty but the bounds read as addresses are in order (`[184549376 TO -1073741825]`,
 * 11.0.0.0 to 191.255.255.255, a form published queries use) the address order is meant. Any
 * dotted bound makes it a plain address range.
 */
export function parseIpv4Range(lower: string | null, upper: string | null): Ipv4Range[] | Invalid {
  const bounds = [lower, upper];
  const dotted = bounds.some((b) => b !== null && !INTEGER.test(b));
  const values: number[] = [];
  for (const [i, bound] of bounds.entries()) {
    if (bound === null) values.push(dotted ? (i === 0 ? 0 : MAX_V4) : i === 0 ? -(2 ** 31) : 2 ** 31 - 1);
    else if (dotted) {
      const address = INTEGER.test(bound) ? integerAddress(bound) : ipv4ToInt(bound);
      if (address === undefined) return { invalid: 'Range bounds are IPv4 addresses or integers' };
      if (typeof address !== 'number') return address;
      values.push(address);
    } else {
      const address = integerAddress(bound);
      if (typeof address !== 'number') return address;
      values.push(Number(bound) > 2 ** 31 - 1 ? address - TWO_32 : Number(bound));
    }
  }
  const [low, high] = values as [number, number];
  if (dotted) return low <= high ? [{ first: low, last: high }] : [];
  if (low > high) {
    const [first, last] = [fromSignedInt32(low), fromSignedInt32(high)];
    return first <= last ? [{ first, last }] : [];
  }
  if (low >= 0 || high < 0) return [{ first: fromSignedInt32(low), last: fromSignedInt32(high) }];
  return [
    { first: fromSignedInt32(low), last: MAX_V4 },
    { first: 0, last: high },
  ];
}

/** One IPv6 query value, with an optional /prefix (default 128; the 7.x doc's "32" is a slip). */
export function parseIpv6Query(value: string): Ipv6Range | Invalid {
  const [address = '', bits, extra] = value.split('/');
  const prefix = bits === undefined ? 128 : /^\d{1,3}$/u.test(bits) ? Number(bits) : NaN;
  if (extra !== undefined || !(prefix >= 0 && prefix <= 128)) return { invalid: 'An IPv6 prefix is /0 to /128' };
  const base = ipv6ToBigInt(address);
  if (base === undefined) return { invalid: 'Expected an IPv6 address such as fe80::1 or fe00:b9::/50' };
  const hostBits = BigInt(128 - prefix);
  const first = (base >> hostBits) << hostBits;
  return { first, last: first | ((1n << hostBits) - 1n) };
}

export function parseIpv6Range(lower: string | null, upper: string | null): Ipv6Range[] | Invalid {
  const first = lower === null ? 0n : ipv6ToBigInt(lower);
  const last = upper === null ? MAX_V6 : ipv6ToBigInt(upper);
  if (first === undefined || last === undefined) return { invalid: 'Range bounds are IPv6 addresses' };
  return first <= last ? [{ first, last }] : [];
}
