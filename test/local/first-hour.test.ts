import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_DELAY } from '../../lib/core/settings.ts';
import { DEMO_API_KEY } from '../../local/demo/identity.ts';
import { demoTemplates } from '../../local/demo/templates.ts';
import { freePort } from '../../local/ports.ts';
import { localStoreProblem } from '../../local/store-probe.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/**
 * `npm start` on ports of its own, with its own DynamoDB Local, as a new user meets it: a banner
 * that says search indexing runs and a line when the demo data is searchable, every listener on loopback, the invoke and admin commands
 * finding the runtime from DATA_DIR alone, and the documented publish → searchable bound.
 */
const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const dataDir = scratchDir('first-hour-');
let app: ChildProcessWithoutNullStreams;
let output = '';
let port: number;
let dynamoPort: number;

beforeAll(
  async () => {
    [port, dynamoPort] = [await freePort(), await freePort()];
    app = spawn('npm', ['start', '--silent'], {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        LOG_LEVEL: 'silent',
        DYNAMODB_ENDPOINT: '',
        TABLE_NAME: '',
        PORT: String(port),
        LOCAL_DYNAMODB_PORT: String(dynamoPort),
        DATA_DIR: dataDir,
      },
    });
    app.stdout.on('data', (d: Buffer) => (output += d.toString()));
    app.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + (SEARCH_DELAY.firstStartWaitSeconds + 120) * 1000;
    while (!output.includes('Press Ctrl-C to stop.')) {
      if (app.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  },
  (SEARCH_DELAY.firstStartWaitSeconds + 150) * 1000,
);

afterAll(() => {
  try {
    process.kill(-app.pid!, 'SIGKILL');
  } catch {
    // gone already
  }
});

const auth = { authorization: `Bearer ${DEMO_API_KEY}` };
const api = (path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { ...auth, ...init.headers } });
const found = async (words: string, slug: string) => {
  const res = await api(`/v1/marketplace/templates?search=${encodeURIComponent(words)}&sort=recent&limit=20`);
  return ((await res.json()) as { data: { slug: string }[] }).data.some((t) => t.slug === slug);
};

/** The pids of the runtime's process group (npm, node, Java), from /proc. */
function groupPids(group: number): number[] {
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
function listeningSockets(pids: number[]): Array<{ address: string; port: number }> {
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

const isLoopback = (address: string) =>
  address.startsWith('127.') ||
  address.startsWith('::ffff:127.') ||
  address === '0000:0000:0000:0000:0000:0000:0000:0001';

describe('npm start, the first hour', () => {
  it(
    'says in its banner that search indexing runs, then when every public demo template is found by search',
    async () => {
      expect(output).toContain('Search        indexing the demo templates');
      const deadline = Date.now() + (SEARCH_DELAY.firstStartWaitSeconds + 30) * 1000;
      while (!/Search is (ready|still indexing)/.test(output)) {
        expect(Date.now() < deadline, output).toBe(true);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(output).toContain(`Search is ready: every demo template is found (`);
      expect(output).toContain(`A publish is searchable within ${SEARCH_DELAY.publishToSearchableSeconds} s.`);
      for (const t of demoTemplates.filter((d) => d.visibility === 'public'))
        expect(await found(t.slug.replaceAll('-', ' '), t.slug), t.slug).toBe(true);
    },
    (SEARCH_DELAY.firstStartWaitSeconds + 60) * 1000,
  );

  it('listens on loopback only: the API, DynamoDB Local, the SQS emulator and the demo webhook sink', () => {
    const sockets = listeningSockets(groupPids(app.pid!));
    const ports = sockets.map((s) => s.port);
    expect(ports).toContain(port);
    expect(ports).toContain(dynamoPort);
    // API, DynamoDB Local, fauxqs, the demo sink: nothing else, and nothing on another interface.
    expect(new Set(ports).size, JSON.stringify(sockets)).toBe(4);
    expect(
      sockets.filter((s) => !isLoopback(s.address)),
      JSON.stringify(sockets),
    ).toEqual([]);
  });

  it('has invoke and admin find its ports from DATA_DIR alone (no LOCAL_DYNAMODB_PORT repeated)', async () => {
    const env = { ...process.env, DATA_DIR: dataDir, DYNAMODB_ENDPOINT: '', TABLE_NAME: '', LOCAL_DYNAMODB_PORT: '' };
    const invoked = await run('npm', ['run', '--silent', 'invoke', '--', 'listTemplates'], { cwd: root, env });
    expect((JSON.parse(invoked.stdout) as { statusCode: number }).statusCode).toBe(200);
    const keys = await run('npm', ['run', '--silent', 'admin', '--', 'list-keys'], { cwd: root, env });
    expect(keys.stdout).toContain('"key_id":"key_');
  }, 120_000);

  it(`keeps the documented bound: a published template is found by search within ${SEARCH_DELAY.publishToSearchableSeconds} s`, async () => {
    const slug = `first-hour-${Date.now()}`;
    const published = await api('/v1/marketplace/templates', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Zephyrine probe',
        slug,
        category: 'http',
        version: '1.0.0',
        schema: { variables: [], checks: [] },
      }),
    });
    expect(published.status).toBe(201);
    const answered = Date.now();
    while (!(await found('zephyrine probe', slug))) {
      expect(Date.now() - answered).toBeLessThan(SEARCH_DELAY.publishToSearchableSeconds * 1000);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});

describe('invoke and admin with nothing answering', () => {
  let silent: Server;
  const held = new Set<Socket>();
  let silentPort: number;
  beforeAll(async () => {
    // Accepts connections and never answers: the worst a wrong port can be.
    silent = createServer((socket) => void held.add(socket));
    silentPort = await new Promise<number>((resolve) =>
      silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)),
    );
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        silent.close(() => resolve());
        for (const socket of held) socket.destroy();
      }),
  );

  it('say so in one sentence, and the check behind it gives up within 2 s', async () => {
    const empty = scratchDir('no-runtime-');
    for (const dynamo of [silentPort, await freePort()]) {
      const endpoint = `http://127.0.0.1:${dynamo}`;
      const started = Date.now();
      expect(await localStoreProblem(endpoint, 'marketplace')).toContain(`No DynamoDB answers at ${endpoint}`);
      expect(Date.now() - started, endpoint).toBeLessThan(2000);
      for (const command of [
        ['invoke', '--', 'listTemplates'],
        ['admin', '--', 'list-keys'],
      ]) {
        const failed = await run('npm', ['run', '--silent', ...command], {
          cwd: root,
          env: {
            ...process.env,
            DYNAMODB_ENDPOINT: '',
            TABLE_NAME: '',
            DATA_DIR: empty,
            LOCAL_DYNAMODB_PORT: String(dynamo),
          },
        }).then(
          () => ({ code: 0, stderr: '' }),
          (err: { code: number; stderr: string }) => err,
        );
        expect(failed.code, command.join(' ')).toBe(1);
        expect(failed.stderr.trim()).toMatch(new RegExp(`^No DynamoDB answers at ${endpoint}: [^\\n]+$`));
      }
    }
  }, 120_000);
});
