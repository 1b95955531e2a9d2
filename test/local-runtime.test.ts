import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, portInUse } from '../local/ports.ts';
import { scratchDir } from './support/scratch-dir.ts';

const root = join(import.meta.dirname, '..');
const children: ChildProcessWithoutNullStreams[] = [];

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` as a user runs it, with its own ports and data folder, in a process group of its
 * own: the test signals only the npm process, and cleans up the whole group whatever happens.
 * `via: 'node'` runs local/start.ts without npm (for a PATH that has no npm).
 */
function start(env: Record<string, string>, via: 'npm' | 'node' = 'npm'): Started {
  const [command, args] =
    via === 'npm'
      ? ['npm', ['start', '--silent']]
      : [process.execPath, ['--import', 'tsx', join(root, 'local/start.ts')]];
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
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

/** True while any process of the group (npm, node, Java, esbuild) is alive. */
function groupAlive(child: ChildProcessWithoutNullStreams): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

afterEach(() => {
  for (const child of children.splice(0)) {
    if (groupAlive(child)) process.kill(-child.pid!, 'SIGKILL');
  }
});

/** SIGTERM to the npm process alone, as `kill <pid>` would: everything it started must go, ports too. */
async function stopWithSigterm(app: Started, ports: number[]): Promise<void> {
  app.child.kill('SIGTERM');
  expect(await app.exited).toBe(0);
  await waitFor(() => !groupAlive(app.child), 30_000);
  for (const port of ports) expect(await portInUse(port), `port ${port}`).toBe(false);
}

describe('npm start', () => {
  it('serves a demo key that can publish and read; one start per DATA_DIR; SIGTERM or SIGINT to npm, or npm killed, leaves no process or port behind', async () => {
    const dataDir = scratchDir('start-');
    // Two at the same moment on an empty folder: one runs, the other is refused at once.
    const portsOf = async () => ({ port: await freePort(), dynamoPort: await freePort() });
    const candidates = await Promise.all([portsOf(), portsOf()]);
    const starts = candidates.map(({ port, dynamoPort }) =>
      start({ PORT: String(port), LOCAL_DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir }),
    );
    expect(await Promise.race(starts.map((s) => s.exited))).toBe(1);
    const winner = starts[0]!.child.exitCode === null ? 0 : 1;
    const [app, refused] = [starts[winner]!, starts[1 - winner]!];
    const { port, dynamoPort } = candidates[winner]!;
    await waitFor(() => app.output().includes('Press Ctrl-C to stop.') || app.child.exitCode !== null, 90_000);
    const owner = JSON.parse(readFileSync(join(dataDir, 'runtime.lock'), 'utf8')) as { pid: number };
    expect(refused.output()).toContain(
      `DATA_DIR ${dataDir} is in use by another npm start (pid ${owner.pid}, API on port ${port}`,
    );
    expect(refused.output()).not.toMatch(/\n\s+at /);
    expect(app.output()).toContain('is running in development mode (DEVELOPMENT_MODE=true');

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
      body: JSON.stringify({
        name: 'Smoke',
        slug: 'smoke-test',
        category: 'other',
        version: '1.0.0',
        schema: { variables: [], checks: [] },
      }),
    });
    expect(published.status).toBe(201);
    const read = await fetch(`${base}/v1/marketplace/templates/smoke-test`, { headers: auth });
    expect(((await read.json()) as { slug: string }).slug).toBe('smoke-test');

    // A later start on the same folder while it runs: refused, naming it.
    const late = start({
      PORT: String(await freePort()),
      LOCAL_DYNAMODB_PORT: String(await freePort()),
      DATA_DIR: dataDir,
    });
    expect(await late.exited).toBe(1);
    expect(late.output()).toContain(`in use by another npm start (pid ${owner.pid}`);

    await stopWithSigterm(app, [port, dynamoPort]);

    // Data and the demo key survive a restart (the lock was released); the banner tells the mode it runs in.
    const again = start({
      PORT: String(port),
      LOCAL_DYNAMODB_PORT: String(dynamoPort),
      DATA_DIR: dataDir,
      DEVELOPMENT_MODE: 'false',
    });
    await waitFor(() => again.output().includes('Press Ctrl-C to stop.') || again.child.exitCode !== null, 90_000);
    expect(again.output()).toContain('is running with production rules (DEVELOPMENT_MODE=false');
    expect(again.output()).not.toContain('development mode');
    expect(/Demo API key\s+(mk_\S+)/.exec(again.output())?.[1]).toBe(key);
    const kept = await fetch(`${base}/v1/marketplace/templates/smoke-test`, { headers: auth });
    expect(kept.status).toBe(200);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    await waitFor(() => !groupAlive(again.child), 30_000);
    expect(await portInUse(dynamoPort)).toBe(false);

    // npm dies without passing a signal on (SIGKILL): the orphaned runtime notices its parent is
    // gone and stops DynamoDB Local and the API. (On the seeded folder: a fresh one would only add
    // a demo seed and its search indexing to the test's time.)
    const orphaned = start({ PORT: String(port), LOCAL_DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
    await waitFor(
      () => orphaned.output().includes('Press Ctrl-C to stop.') || orphaned.child.exitCode !== null,
      90_000,
    );
    expect(await portInUse(dynamoPort)).toBe(true);
    orphaned.child.kill('SIGKILL');
    await waitFor(() => !groupAlive(orphaned.child), 60_000);
    expect(await portInUse(dynamoPort)).toBe(false);
    expect(await portInUse(port)).toBe(false);
  }, 360_000);

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
    const bin = join(scratchDir('nojava-'), 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const app = start(
      {
        PATH: bin,
        PORT: String(await freePort()),
        LOCAL_DYNAMODB_PORT: String(await freePort()),
        DATA_DIR: ':memory:',
      },
      'node',
    );
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('Java was not found');
    expect(app.output()).not.toMatch(/\n\s+at /);
  }, 60_000);
});
