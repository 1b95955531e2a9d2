/**
 * A real DNS server on 127.0.0.1 (UDP) for tests and benchmarks: answers A and AAAA queries for
 * the names it is given, with their TTL, and counts the queries it received. Unknown names get
 * NXDOMAIN. Only what a stub resolver sends is understood: one question, no compression in it.
 */
import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';

export interface DnsRecords {
  addresses: string[];
  ttl: number;
  /** Answer AAAA queries for the name with SERVFAIL (DNS failing, not "no records"). */
  failAaaa?: boolean;
}

export interface LocalDnsServer {
  /** `127.0.0.1:port`, for a resolver's `servers`. */
  server: string;
  /** Set or change a name's answer. */
  set(name: string, records: DnsRecords): void;
  /** Queries received for a name (A and AAAA both count). */
  queries(name: string): number;
  stop(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const part = (s: string) => (s ? s.split(':') : []);
  const words = [...part(head), ...Array(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  const out = Buffer.alloc(16);
  for (const [i, w] of words.entries()) out.writeUInt16BE(parseInt(w, 16), i * 2);
  return out;
}

export async function startDnsServer(): Promise<LocalDnsServer> {
  const names = new Map<string, DnsRecords>();
  const counts = new Map<string, number>();
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    // Question: labels from byte 12 to a zero byte, then type and class.
    const labels: string[] = [];
    let at = 12;
    while (query[at]! > 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString('ascii'));
      at += 1 + query[at]!;
    }
    const questionEnd = at + 5;
    const type = query.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    counts.set(name, (counts.get(name) ?? 0) + 1);
    const records = names.get(name);
    const wanted = (records?.addresses ?? []).filter((a) =>
      type === TYPE_A ? isIPv4(a) : type === TYPE_AAAA ? a.includes(':') : false,
    );
    const answers = wanted.map((address) => {
      const data = type === TYPE_A ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const head = Buffer.alloc(12);
      head.writeUInt16BE(0xc00c, 0); // a pointer to the question's name
      head.writeUInt16BE(type, 2);
      head.writeUInt16BE(1, 4); // class IN
      head.writeUInt32BE(records!.ttl, 6);
      head.writeUInt16BE(data.length, 10);
      return Buffer.concat([head, data]);
    });
    const serverFailure = records?.failAaaa === true && type === TYPE_AAAA;
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0); // the query's id
    // Response, recursion available; rcode NXDOMAIN (3) for unknown names, SERVFAIL (2) when asked to fail.
    header.writeUInt16BE(0x8180 | (serverFailure ? 2 : records ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(serverFailure ? 0 : answers.length, 6);
    socket.send(
      Buffer.concat([header, query.subarray(12, questionEnd), ...(serverFailure ? [] : answers)]),
      peer.port,
      peer.address,
    );
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    set: (name, records) => void names.set(name.toLowerCase(), records),
    queries: (name) => counts.get(name.toLowerCase()) ?? 0,
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
