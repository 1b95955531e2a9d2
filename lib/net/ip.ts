/**
 * IP address parsing and the "is this a public unicast address" rule, with no dependencies, so
 * the one policy can be read and fuzzed in one place. Parsing is deliberately lenient (every
 * legacy spelling inet_aton accepts: `127.1`, `0x7f.1`, `017700000001`, `2130706433`) because
 * the question is always "where would a socket go", and an address we cannot read is refused.
 */

/** IPv4 in the inet_aton / WHATWG sense: 1–4 parts, each decimal, octal (0…) or hex (0x…). */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  // One trailing dot is tolerated ("127.0.0.1."), as URL parsers and resolvers do.
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Part(part);
    if (value === null) return null;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return null;
  if (last >= 256 ** (4 - values.length)) return null;
  let result = last;
  for (const [i, v] of values.entries()) result += v * 256 ** (3 - i);
  return result;
}

function parseIPv4Part(part: string): number | null {
  let value: number;
  if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  else if (/^0[0-7]*$/.test(part)) value = parseInt(part, 8);
  else if (/^[1-9][0-9]*$/.test(part)) value = parseInt(part, 10);
  else return null;
  return Number.isSafeInteger(value) && value <= 0xffffffff ? value : null;
}

/** IPv6 (brackets and a zone id tolerated) as eight 16-bit words, or null. */
export function parseIPv6(text: string): number[] | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!/^[0-9a-f:.]+$/i.test(s)) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const words: number[] = [];
  const read = (groups: string[], isLastHalf: boolean): boolean => {
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      if (isLastHalf && i === groups.length - 1 && g.includes('.')) {
        // Embedded dotted quad (::ffff:1.2.3.4): only the strict four-decimal form is IPv6 syntax.
        if (!/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(g)) return false;
        const octets = g.split('.').map(Number);
        if (octets.some((o) => o > 255)) return false;
        words.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(g)) return false;
        words.push(parseInt(g, 16));
      }
    }
    return true;
  };
  if (!read(head, halves.length === 1)) return null;
  const headLength = words.length;
  if (!read(tail, true)) return null;
  if (halves.length === 1) return words.length === 8 ? words : null;
  const missing = 8 - words.length;
  if (missing < 1) return null;
  words.splice(headLength, 0, ...new Array<number>(missing).fill(0));
  return words;
}

const ipv4 = (a: number, b: number, c: number, d: number) => ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;

/** IANA special-purpose and non-unicast IPv4 blocks, plus RFC 1918 and CGNAT: nothing here is a public host. */
const FORBIDDEN_V4: ReadonlyArray<readonly [number, number]> = [
  [ipv4(0, 0, 0, 0), 8], // "this network", 0.0.0.0 (connects to the local host on Linux)
  [ipv4(10, 0, 0, 0), 8], // private
  [ipv4(100, 64, 0, 0), 10], // CGNAT (and cloud metadata such as 100.100.100.200)
  [ipv4(127, 0, 0, 0), 8], // loopback
  [ipv4(169, 254, 0, 0), 16], // link-local, 169.254.169.254 metadata
  [ipv4(172, 16, 0, 0), 12], // private
  [ipv4(192, 0, 0, 0), 24], // IETF protocol assignments (192.0.0.192 metadata on some clouds)
  [ipv4(192, 0, 2, 0), 24], // TEST-NET-1
  [ipv4(192, 88, 99, 0), 24], // 6to4 relay anycast (deprecated)
  [ipv4(192, 168, 0, 0), 16], // private
  [ipv4(198, 18, 0, 0), 15], // benchmarking
  [ipv4(198, 51, 100, 0), 24], // TEST-NET-2
  [ipv4(203, 0, 113, 0), 24], // TEST-NET-3
  [ipv4(224, 0, 0, 0), 4], // multicast
  [ipv4(240, 0, 0, 0), 4], // reserved, 255.255.255.255 broadcast
];

export function isForbiddenIPv4(address: number): boolean {
  return FORBIDDEN_V4.some(([base, bits]) => bits === 0 || address >>> (32 - bits) === base >>> (32 - bits));
}

const toBig = (words: number[]) => words.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
const cidr6 = (text: string, bits: number) => ({ base: toBig(parseIPv6(text)!), bits: BigInt(bits) });
const inBlock6 = (value: bigint, block: { base: bigint; bits: bigint }) =>
  value >> (128n - block.bits) === block.base >> (128n - block.bits);

/** IPv6 blocks that carry an IPv4 address: the verdict is the embedded address's. */
const EMBEDS_V4 = [
  { block: cidr6('::ffff:0:0', 96), shift: 0n }, // IPv4-mapped
  { block: cidr6('64:ff9b::', 96), shift: 0n }, // NAT64 well-known prefix
  { block: cidr6('2002::', 16), shift: 80n }, // 6to4: 2002:AABB:CCDD::/48
];
const GLOBAL_UNICAST = cidr6('2000::', 3);
/** Non-public blocks inside 2000::/3 (Teredo, benchmarking, ORCHID, documentation). */
const FORBIDDEN_IN_GLOBAL = [cidr6('2001::', 23), cidr6('2001:db8::', 32), cidr6('3fff::', 20)];

/**
 * Allow-list thinking for IPv6: only 2000::/3 is public unicast, so loopback, unspecified,
 * IPv4-compatible, ULA (fc00::/7, incl. the AWS metadata fd00:ec2::254), link-local, site-local,
 * multicast and the discard prefix all fall out without being listed.
 */
export function isForbiddenIPv6(words: number[]): boolean {
  const value = toBig(words);
  for (const { block, shift } of EMBEDS_V4) {
    if (inBlock6(value, block)) return isForbiddenIPv4(Number((value >> shift) & 0xffffffffn));
  }
  if (!inBlock6(value, GLOBAL_UNICAST)) return true;
  return FORBIDDEN_IN_GLOBAL.some((block) => inBlock6(value, block));
}

export type ParsedIp = { family: 4; value: number } | { family: 6; words: number[] };

/** Any textual IP address (IPv6 recognised by its colon); null when it is not an address at all. */
export function parseIp(text: string): ParsedIp | null {
  if (text.includes(':')) {
    const words = parseIPv6(text);
    return words ? { family: 6, words } : null;
  }
  const value = parseIPv4(text);
  return value === null ? null : { family: 4, value };
}
