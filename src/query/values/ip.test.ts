/** Address conversions and ranges (reference §5.7). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bigIntToIpv6, fromSignedInt32, intToIpv4, ipv4ToInt, ipv6ToBigInt, parseIpv4Query, parseIpv4Range, parseIpv6Query, toSignedInt32,
} from './ip.js';

describe('IPv4', () => {
  it('converts between dotted quads, unsigned and Carbon Black\'s signed integers', () => {
    assert.equal(ipv4ToInt('131.253.61.68'), 2214411588);
    assert.equal(toSignedInt32(2214411588), -2080555708);
    assert.equal(fromSignedInt32(-2080555708), 2214411588);
    assert.equal(intToIpv4(2214411588), '131.253.61.68');
    assert.equal(ipv4ToInt('1.2.3'), undefined);
    assert.equal(ipv4ToInt('1.2.3.256'), undefined);
  });

  it('reads CIDR with the netmask defaulting to 32', () => {
    assert.deepEqual(parseIpv4Query('10.0.1.1'), { first: 167772417, last: 167772417 });
    assert.deepEqual(parseIpv4Query('0.0.0.0/0'), { first: 0, last: 4294967295 });
    assert.ok('invalid' in parseIpv4Query('10.0.0.0/8/8'));
    assert.ok('invalid' in parseIpv4Query('10.*.1.*'));
  });

  it('reads integer ranges in signed order, and in address order when that is the only sensible reading', () => {
    assert.deepEqual(parseIpv4Range('-2147483648', '2147483647'), [{ first: 2147483648, last: 4294967295 }, { first: 0, last: 2147483647 }]);
    assert.deepEqual(parseIpv4Range(null, null), [{ first: 2147483648, last: 4294967295 }, { first: 0, last: 2147483647 }]);
    assert.deepEqual(parseIpv4Range('0', null), [{ first: 0, last: 2147483647 }]);
    assert.deepEqual(parseIpv4Range('4294967295', '4294967295'), [{ first: 4294967295, last: 4294967295 }]);
    assert.deepEqual(parseIpv4Range('10.0.0.0', '167772160'), [{ first: 167772160, last: 167772160 }]);
  });
});

describe('IPv6', () => {
  it('converts to and from 128-bit numbers', () => {
    assert.equal(ipv6ToBigInt('::1'), 1n);
    assert.equal(bigIntToIpv6(ipv6ToBigInt('fe80:0:0:0:0:0:0:1')!), 'fe80::1');
    assert.equal(ipv6ToBigInt('::ffff:1.2.3.4'), 0xffff01020304n);
  });

  it('reads prefixes, 128 by default', () => {
    assert.deepEqual(parseIpv6Query('::1'), { first: 1n, last: 1n });
    assert.deepEqual(parseIpv6Query('::/0'), { first: 0n, last: (1n << 128n) - 1n });
  });
});
