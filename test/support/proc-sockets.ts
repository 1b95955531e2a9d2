/**
 * What a process group listens on, read from /proc (Linux): the pids of a group, their listening
 * TCP sockets, and whether an address is loopback. For the tests that check `npm start` opens
 * nothing beyond the machine.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The pids of the runtime's process group (npm, node, Java), from /proc. */
export function groupPids(group: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === group;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Listening TCP sockets of these processes: [address, port], from /proc/net/tcp and tcp6 and the processes' fds. */
export function listeningSockets(pids: number[]): Array<{ address: string; port: number }> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
        if (inode) inodes.add(inode);
      }
    } catch {
      // the process ended meanwhile
    }
  }
  const sockets: Array<{ address: string; port: number }> = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // st 0A = LISTEN; column 9 is the socket's inode.
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9]!)) continue;
      const [hex, portHex] = cols[1]!.split(':') as [string, string];
      sockets.push({ address: decodeAddress(hex), port: Number.parseInt(portHex, 16) });
    }
  }
  return sockets;
}

/** /proc/net's address: 32-bit words in host (little-endian) byte order. */
function decodeAddress(hex: string): string {
  const words = hex
    .toLowerCase()
    .match(/.{8}/g)!
    .map((w) => w.match(/../g)!.reverse().join(''));
  if (words.length === 1)
    return words[0]!
      .match(/../g)!
      .map((b) => Number.parseInt(b, 16))
      .join('.');
  const full = words.join('');
  if (full.startsWith('00000000000000000000ffff'))
    return `::ffff:${full
      .slice(24)
      .match(/../g)!
      .map((b) => Number.parseInt(b, 16))
      .join('.')}`;
  return full.match(/.{4}/g)!.join(':');
}

export const isLoopback = (address: string) =>
  address.startsWith('127.') ||
  address.startsWith('::ffff:127.') ||
  address === '0000:0000:0000:0000:0000:0000:0000:0001';
