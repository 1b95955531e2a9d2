import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_DELAY } from '../../lib/core/settings.ts';
import { demoTemplates } from '../../local/demo/templates.ts';
import { freePort, portInUse } from '../../local/ports.ts';
import { localStoreProblem } from '../../local/store-probe.ts';
import { waitFor } from '../events/support.ts';
import { groupPids, isLoopback, listeningSockets } from '../support/proc-sockets.ts';
import { scratchDir } from '../support/scratch-dir.ts';

/**
 * `npm start` as a new user meets it, on ports and a data folder of its own, with its own DynamoDB
 * Local: one start per DATA_DIR (two at once on an empty folder: one runs, the other is refused at
 * once), a banner printed once search finds the demo templates, a console quiet after it (the log
 * lines in a file under DATA_DIR), a demo
 * key that publishes and reads, every listener on loopback, the invoke and admin commands finding
 * the runtime from DATA_DIR alone, the documented publish → searchable bound; then SIGTERM or SIGINT
 * to npm, or npm killed, leaving no process or port behind, and the data kept for the next start.
 * One first start serves every test of the first describe, in order (a first start pays a JVM, the
 * demo seed and its search indexing).
 */
const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const started: ChildProcessWithoutNullStreams[] = [];

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` as a user runs it, in a process group of its own: the test signals only the npm
 * process, and cleans up the whole group whatever happens. `via: 'node'` runs local/start.ts
 * without npm (for a PATH that has no npm).
 */
function start(env: Record<string, string | undefined>, via: 'npm' | 'node' = 'npm'): Started {
  const [command, args] =
    via === 'npm' ? ['npm', ['start', '--silent']] : [process.execPath, [join(root, 'local/start.ts')]];
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    env: { ...process.env, LOG_LEVEL: 'silent', DYNAMODB_ENDPOINT: '', TABLE_NAME: '', ...env },
  });
  started.push(child);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const READY = 'Press Ctrl-C to stop.';
const ready = (app: Started, ms = 90_000) =>
  waitFor(() => app.output().includes(READY) || app.child.exitCode !== null, 'the banner or an exit', ms);

/** True while any process of the group (npm, node, Java, esbuild) is alive. */
function groupAlive(child: ChildProcessWithoutNullStreams): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  for (const child of started.splice(0)) if (groupAlive(child)) process.kill(-child.pid!, 'SIGKILL');
});

/** SIGTERM to the npm process alone, as `kill <pid>` would: everything it started must go, ports too. */
async function stopWithSigterm(app: Started, ports: number[]): Promise<void> {
  app.child.kill('SIGTERM');
  expect(await app.exited).toBe(0);
  await waitFor(() => !groupAlive(app.child), 'every process of the group gone', 30_000);
  for (const port of ports) expect(await portInUse(port), `port ${port}`).toBe(false);
}

const dataDir = scratchDir('first-hour-');
let app: Started;
let refused: Started;
let port: number;
let dynamoPort: number;
let key: string;

const api = (path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...init.headers },
  });
const found = async (words: string, slug: string) => {
  const res = await api(`/v1/marketplace/templates?search=${encodeURIComponent(words)}&sort=recent&limit=20`);
  return ((await res.json()) as { data: { slug: string }[] }).data.some((t) => t.slug === slug);
};

describe('npm start, the first hour', () => {
  beforeAll(
    async () => {
      // Two at the same moment on an empty folder: one runs, the other is refused at once.
      const portsOf = async () => ({ port: await freePort(), dynamoPort: await freePort() });
      const candidates = await Promise.all([portsOf(), portsOf()]);
      const starts = candidates.map((c) =>
        // No LOG_LEVEL: what a new user runs (the console stays quiet, the lines go to a file).
        start({
          PORT: String(c.port),
          LOCAL_DYNAMODB_PORT: String(c.dynamoPort),
          DATA_DIR: dataDir,
          LOG_LEVEL: undefined,
        }),
      );
      expect(await Promise.race(starts.map((s) => s.exited))).toBe(1);
      const winner = starts[0]!.child.exitCode === null ? 0 : 1;
      [app, refused] = [starts[winner]!, starts[1 - winner]!];
      ({ port, dynamoPort } = candidates[winner]!);
      await ready(app, (SEARCH_DELAY.firstStartWaitSeconds + 120) * 1000);
      if (app.child.exitCode !== null) throw new Error(`npm start did not start:\n${app.output()}`);
      key = /Demo API key\s+(mk_\S+)/.exec(app.output())![1]!;
    },
    (SEARCH_DELAY.firstStartWaitSeconds + 150) * 1000,
  );

  it('runs one start per DATA_DIR: of two at once, the other is refused at once, naming the one that runs', () => {
    const owner = JSON.parse(readFileSync(join(dataDir, 'runtime.lock'), 'utf8')) as { pid: number };
    expect(refused.output()).toContain(
      `DATA_DIR ${dataDir} is in use by another npm start (pid ${owner.pid}, API on port ${port}`,
    );
    expect(refused.output()).not.toMatch(/\n\s+at /);
    expect(app.output()).toContain('is running in development mode (DEVELOPMENT_MODE=true');
  });

  it('finds every public demo template by search as soon as the banner prints', async () => {
    expect(app.output()).toContain(
      `Search        ready: every demo template is found; a publish is searchable within ${SEARCH_DELAY.publishToSearchableSeconds} s`,
    );
    // Asked at once, in parallel: no wait, no retry.
    const publicSlugs = demoTemplates.filter((d) => d.visibility === 'public').map((d) => d.slug);
    const answers = await Promise.all(publicSlugs.map((slug) => found(slug.replaceAll('-', ' '), slug)));
    expect(Object.fromEntries(publicSlugs.map((slug, i) => [slug, answers[i]]))).toEqual(
      Object.fromEntries(publicSlugs.map((slug) => [slug, true])),
    );
  });

  it('keeps its console quiet after the banner: the log lines go to a file under DATA_DIR, which the banner names', async () => {
    const logFile = join(dataDir, 'runtime.log');
    expect(app.output()).toContain(`Logs          ${logFile} (LOG_LEVEL=info npm start prints them here instead)`);
    // The demo's deliveries and its destination's failed verification log while the pipeline starts.
    await waitFor(() => readFileSync(logFile, 'utf8').includes('"delivery attempt"'), 'a delivery logged', 60_000);
    const afterBanner = app.output().slice(app.output().indexOf(READY) + READY.length);
    expect(afterBanner.trim()).toBe('');
    expect(readFileSync(logFile, 'utf8')).toContain('"destination verification not sent"');
  }, 70_000);

  it("listens on loopback only: the API, DynamoDB Local, the SQS emulator, the demo webhook sink and the push worker's Invoke API", () => {
    const sockets = listeningSockets(groupPids(app.child.pid!));
    const ports = sockets.map((s) => s.port);
    expect(ports).toContain(port);
    expect(ports).toContain(dynamoPort);
    // API, DynamoDB Local, fauxqs, the demo sink, the local Lambda Invoke API the relay hands the push
    // worker its work through (local/emulators/async-invoke.ts): nothing else, and nothing on another interface.
    expect(new Set(ports).size, JSON.stringify(sockets)).toBe(5);
    expect(
      sockets.filter((s) => !isLoopback(s.address)),
      JSON.stringify(sockets),
    ).toEqual([]);
  });

  it('has invoke and admin find its ports from DATA_DIR alone (no LOCAL_DYNAMODB_PORT repeated)', async () => {
    const env = { ...process.env, DATA_DIR: dataDir, DYNAMODB_ENDPOINT: '', TABLE_NAME: '', LOCAL_DYNAMODB_PORT: '' };
    const [invoked, keys] = await Promise.all([
      run('npm', ['run', '--silent', 'invoke', '--', 'listTemplates'], { cwd: root, env }),
      run('npm', ['run', '--silent', 'admin', '--', 'list-keys'], { cwd: root, env }),
    ]);
    expect((JSON.parse(invoked.stdout) as { statusCode: number }).statusCode).toBe(200);
    expect(keys.stdout).toContain('"key_id":"key_');
  }, 120_000);

  it('serves the demo key: it lists the demo catalog, publishes and reads', async () => {
    expect((await fetch(`http://localhost:${port}/health`)).status).toBe(200);
    const list = await api('/v1/marketplace/templates');
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(5);
    // Every list of the catalog page shows something on a first start: the demo has installs, reviews and features.
    type Summary = { slug: string; stats: { installs: number; rating_count: number } };
    const lists = (await (await api('/v1/marketplace/templates/featured')).json()) as Record<string, Summary[]>;
    for (const name of ['featured', 'trending', 'new', 'top_rated'])
      expect(lists[name]?.length, name).toBeGreaterThan(0);
    expect(lists['top_rated']!.every((t) => t.stats.rating_count > 0)).toBe(true);
    expect(lists['trending']!.every((t) => t.stats.installs > 0)).toBe(true);
    const published = await api('/v1/marketplace/templates', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Smoke',
        slug: 'smoke-test',
        category: 'other',
        version: '1.0.0',
        schema: { variables: [], checks: [] },
      }),
    });
    expect(published.status).toBe(201);
    const read = await api('/v1/marketplace/templates/smoke-test');
    expect(((await read.json()) as { slug: string }).slug).toBe('smoke-test');
  });

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

  it('refuses a later start on the same folder while it runs, naming it', async () => {
    const owner = JSON.parse(readFileSync(join(dataDir, 'runtime.lock'), 'utf8')) as { pid: number };
    const late = start({
      PORT: String(await freePort()),
      LOCAL_DYNAMODB_PORT: String(await freePort()),
      DATA_DIR: dataDir,
    });
    expect(await late.exited).toBe(1);
    expect(late.output()).toContain(`in use by another npm start (pid ${owner.pid}`);
  }, 60_000);

  it('stops on SIGTERM or SIGINT to npm, or when npm is killed, leaving no process or port behind; the data and the demo key stay', async () => {
    await stopWithSigterm(app, [port, dynamoPort]);

    // Data and the demo key survive a restart (the lock was released); the banner tells the mode it runs in.
    const again = start({
      PORT: String(port),
      LOCAL_DYNAMODB_PORT: String(dynamoPort),
      DATA_DIR: dataDir,
      DEVELOPMENT_MODE: 'false',
    });
    await ready(again);
    expect(again.output()).toContain('is running with production rules (DEVELOPMENT_MODE=false');
    expect(again.output()).not.toContain('development mode');
    expect(/Demo API key\s+(mk_\S+)/.exec(again.output())?.[1]).toBe(key);
    expect((await api('/v1/marketplace/templates/smoke-test')).status).toBe(200);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    await waitFor(() => !groupAlive(again.child), 'every process of the group gone', 30_000);
    expect(await portInUse(dynamoPort)).toBe(false);

    // npm dies without passing a signal on (SIGKILL): the orphaned runtime notices its parent is
    // gone and stops DynamoDB Local and the API.
    const orphaned = start({ PORT: String(port), LOCAL_DYNAMODB_PORT: String(dynamoPort), DATA_DIR: dataDir });
    await ready(orphaned);
    expect(await portInUse(dynamoPort)).toBe(true);
    orphaned.child.kill('SIGKILL');
    await waitFor(() => !groupAlive(orphaned.child), 'every process of the group gone', 60_000);
    expect(await portInUse(dynamoPort)).toBe(false);
    expect(await portInUse(port)).toBe(false);
  }, 360_000);
});

describe('npm start that cannot start', () => {
  it('says in one sentence that a port is taken', async () => {
    const blocker = createServer().listen(0, '0.0.0.0');
    await new Promise((r) => blocker.once('listening', r));
    const taken = (blocker.address() as { port: number }).port;
    const failed = start({ PORT: String(taken), LOCAL_DYNAMODB_PORT: String(await freePort()), DATA_DIR: ':memory:' });
    expect(await failed.exited).toBe(1);
    expect(failed.output()).toContain(`Port ${taken} is already in use`);
    expect(failed.output()).not.toMatch(/\n\s+at /); // no stack trace
    blocker.close();
  }, 60_000);

  it('says in one sentence that Java is missing', async () => {
    // A PATH with node and nothing else.
    const bin = join(scratchDir('nojava-'), 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const failed = start(
      {
        PATH: bin,
        PORT: String(await freePort()),
        LOCAL_DYNAMODB_PORT: String(await freePort()),
        DATA_DIR: ':memory:',
      },
      'node',
    );
    expect(await failed.exited).toBe(1);
    expect(failed.output()).toContain('Java was not found');
    expect(failed.output()).not.toMatch(/\n\s+at /);
  }, 60_000);
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
      const began = Date.now();
      expect(await localStoreProblem(endpoint, 'marketplace')).toContain(`No DynamoDB answers at ${endpoint}`);
      expect(Date.now() - began, endpoint).toBeLessThan(2000);
    }
    // The four commands at once: each is a process of its own.
    const attempts = [silentPort, await freePort()].flatMap((dynamo) =>
      [
        ['invoke', '--', 'listTemplates'],
        ['admin', '--', 'list-keys'],
      ].map(async (command) => {
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
        const endpoint = `http://127.0.0.1:${dynamo}`;
        expect(failed.code, command.join(' ')).toBe(1);
        expect(failed.stderr.trim()).toMatch(new RegExp(`^No DynamoDB answers at ${endpoint}: [^\\n]+$`));
      }),
    );
    await Promise.all(attempts);
  }, 120_000);
});
