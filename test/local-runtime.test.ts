import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, mkdirSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, portInUse } from '../local/ports.ts';

const root = join(import.meta.dirname, '..');
const children: ChildProcessWithoutNullStreams[] = [];

/** `npm start` as a user runs it (through tsx, on the pinned Node), with its own ports and data folder. */
function start(env: Record<string, string>): { child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'local/start.ts')], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent', DYNAMODB_ENDPOINT: '', TABLE_NAME: '', ...env },
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(predicate: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe('npm start', () => {
  it('serves a demo key that can publish and read, and SIGTERM leaves no Java process or port behind', async () => {
    const [port, dynamoPort] = [await freePort(), await freePort()];
    const dataDir = mkdtempSync(join(tmpdir(), 'start-'));
    const app = start({ PORT: String(port), LOCAL_DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
    await waitFor(() => app.output().includes('Press Ctrl-C to stop.'), 90_000);
    const key = /Demo API key\s+(mk_\S+)/.exec(app.output())?.[1];
    expect(key).toBeDefined();
    const base = `http://localhost:${port}`;
    const auth = { authorization: `Bearer ${key}` };

    expect((await fetch(`${base}/health`)).status).toBe(200);
    const list = await fetch(`${base}/v1/marketplace/templates`, { headers: auth });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(5);

    const published = await fetch(`${base}/v1/marketplace/templates`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Smoke', slug: 'smoke-test', category: 'other', version: '1.0.0', schema: { variables: [], checks: [] } }),
    });
    expect(published.status).toBe(201);
    const read = await fetch(`${base}/v1/marketplace/templates/smoke-test`, { headers: auth });
    expect(((await read.json()) as { slug: string }).slug).toBe('smoke-test');

    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    expect(await portInUse(dynamoPort)).toBe(false);
    expect(await portInUse(port)).toBe(false);

    // Data and the demo key survive a restart; the demo templates are not seeded twice.
    const again = start({ PORT: String(port), LOCAL_DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
    await waitFor(() => again.output().includes('Press Ctrl-C to stop.'), 90_000);
    expect(/Demo API key\s+(mk_\S+)/.exec(again.output())?.[1]).toBe(key);
    const kept = await fetch(`${base}/v1/marketplace/templates/smoke-test`, { headers: auth });
    expect(kept.status).toBe(200);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    expect(await portInUse(dynamoPort)).toBe(false);
  }, 240_000);

  it('says in one sentence that a port is taken', async () => {
    const blocker = createServer().listen(0, '0.0.0.0');
    await new Promise((r) => blocker.once('listening', r));
    const taken = (blocker.address() as { port: number }).port;
    const app = start({ PORT: String(taken), LOCAL_DYNAMODB_PORT: String(await freePort()), DATA_DIR: ':memory:' });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain(`Port ${taken} is already in use`);
    expect(app.output()).not.toMatch(/\n\s+at /); // no stack trace
    blocker.close();
  }, 60_000);

  it('says in one sentence that Java is missing', async () => {
    // A PATH with node and nothing else.
    const bin = join(mkdtempSync(join(tmpdir(), 'nojava-')), 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const app = start({ PATH: bin, PORT: String(await freePort()), LOCAL_DYNAMODB_PORT: String(await freePort()), DATA_DIR: ':memory:' });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('Java was not found');
    expect(app.output()).not.toMatch(/\n\s+at /);
  }, 60_000);
});
