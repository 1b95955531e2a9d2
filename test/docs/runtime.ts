import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../local/ports.ts';

export interface StartedRuntime {
  /** `http://127.0.0.1:<port>`, what the docs call http://localhost:3000. */
  url: string;
  /** Everything it printed, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

const READY = 'Press Ctrl-C to stop.';

/**
 * `npm start`, as a reader runs it, on a free port and over this test file's table
 * (DYNAMODB_ENDPOINT + TABLE_NAME: "use an existing DynamoDB"), so it starts no second emulator.
 * Resolves once the banner is out: the demo data is seeded and the pipeline runs.
 */
export async function startRuntime(cwd: string, timeoutMs: number): Promise<StartedRuntime> {
  const port = await freePort();
  let printed = '';
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd,
    env: { ...process.env, PORT: String(port), DATA_DIR: ':memory:', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  while (!printed.includes(READY)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not become ready:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}`, output: () => printed, stop };
}
