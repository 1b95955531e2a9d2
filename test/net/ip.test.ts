import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseIPv4, parseIPv6 } from '../../lib/net/ip.ts';
import { isForbiddenAddress } from '../../lib/net/url-policy.ts';

describe('IP parsing', () => {
  it('reads every inet_aton spelling of IPv4', () => {
    const loopback = 0x7f000001;
    for (const text of [
      '127.0.0.1',
      '127.1',
      '127.0.1',
      '2130706433',
      '0x7f000001',
      '0x7f.0.0.1',
      '0177.0.0.1',
      '017700000001',
      '0x7F.1',
      '127.0.0.1.',
    ]) {
      expect(parseIPv4(text), text).toBe(loopback);
    }
    for (const text of [
      '',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.4294967296',
      '08.1.1.1',
      '1..1',
      'a.b.c.d',
      '1.2.3.4..',
      ' 1.2.3.4',
      '0x1g.0.0.1',
    ]) {
      expect(parseIPv4(text), text).toBeNull();
    }
  });

  it('reads IPv6 with compression, embedded IPv4, brackets and zone ids', () => {
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('[::ffff:127.0.0.1]')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('1:2:3:4:5:6:7::')).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    for (const text of [
      '',
      ':',
      ':::',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      '::1.2.3',
      '::1.2.3.256',
      'g::1',
      '1:2:3:4:5:6:7:8::',
    ]) {
      expect(parseIPv6(text), text).toBeNull();
    }
  });
});

describe('isForbiddenAddress', () => {
  it('refuses what a resolver can return for internal hosts and allows public unicast', () => {
    const forbidden = [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.0.10',
      '100.64.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.251',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1%lo',
      'fd00:ec2::254',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      'ff02::fb',
      'not-an-ip',
    ];
    for (const ip of forbidden) expect(isForbiddenAddress(ip), ip).toBe(true);
    for (const ip of [
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80e::200e',
      '::ffff:8.8.8.8',
    ]) {
      expect(isForbiddenAddress(ip), ip).toBe(false);
    }
  });

  it('gives every spelling of a random IPv4 address the same verdict (fuzz, 5000 addresses)', () => {
    for (let i = 0; i < 5000; i++) {
      const n = randomInt(0, 2 ** 32);
      const octets = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
      const verdict = isForbiddenAddress(octets.join('.'));
      const spellings = [
        String(n),
        `0x${n.toString(16)}`,
        `0${n.toString(8)}`,
        octets.map((o) => `0x${o.toString(16)}`).join('.'),
        octets.map((o) => `0${o.toString(8)}`).join('.'),
        `${octets[0]}.${(n & 0xffffff) >>> 0}`,
        `${octets[0]}.${octets[1]}.${n & 0xffff}`,
        `::ffff:${octets.join('.')}`,
        `64:ff9b::${octets.join('.')}`,
        `2002:${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}::1`,
      ];
      for (const s of spellings) expect(isForbiddenAddress(s), `${s} vs ${octets.join('.')}`).toBe(verdict);
    }
  });
});
