/**
 * The push worker (local/emulators/push-worker.ts: the local Invoke API the relay hands off to, and
 * the worker's handler) in a worker thread of its own, as `npm start` runs it. In AWS the push worker is a Lambda
 * function with its own CPU; in one event loop with the local API its stages wait in line behind
 * every request's callbacks, and under a burst of moves that line, not the work, was most of a
 * frame's delay (docs/benchmarks.md, "Push channel"). A thread of its own is time-sliced by the OS
 * against the API instead. The same handler runs, inside its grant; the relay (in this process,
 * local/emulators/event-pipeline.ts) invokes it over HTTP, and it posts to the API's @connections
 * stand-in over HTTP, as in AWS.
 *
 * The thread's environment is a copy of this process's at the start (Node's default for workers);
 * the API's own sends (a client's sync) read PUSH_CONNECTIONS_ENDPOINT here, and the relay reads
 * LAMBDA_ENDPOINT and PUSH_FUNCTION_NAME here, so they are set on this side once the thread is ready.
 */
import { Worker } from 'node:worker_threads';
import type { FailedInvocation } from './async-invoke.ts';
import type { PushWorkerOptions } from './push-worker.ts';

/** The question the thread answers itself, with its worker's failed runs. */
export const FAILURES = 'push-failures';

export interface PushThreadOptions extends Omit<PushWorkerOptions, 'trace'> {
  /**
   * A bench's trace (file URL of a module exporting `threadTrace()`, bench/_push-trace.ts): made in
   * the thread, where the worker runs; `ask` talks to it.
   */
  traceModule?: string;
  /** The runtime's log file (local/log-file.ts): the thread's lines go there too, when given. */
  logFile?: string;
}

export interface PushThread {
  /** Asks the thread's trace something and resolves with its answer. */
  ask(question: unknown): Promise<unknown>;
  /** The worker's runs that failed after Lambda's retries (the push failure queue's messages). */
  failures(): Promise<FailedInvocation[]>;
  stop(): Promise<void>;
}

/** What the parent sends the thread. */
export type ToThread = { kind: 'stop' } | { kind: 'ask'; id: number; question: unknown };
/** What the thread sends the parent. */
export type FromThread =
  | { kind: 'ready'; invokeEndpoint: string; functionName: string }
  | { kind: 'stopped' }
  | { kind: 'answer'; id: number; answer: unknown }
  | { kind: 'failed'; message: string };

export async function startPushThread(options: PushThreadOptions): Promise<PushThread> {
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = options.connectionsEndpoint;
  // Node runs the TypeScript itself (type stripping), whoever started this process: a thread gets
  // none of the module loader a test runner installs in-process (vitest's), and needs none.
  const worker = new Worker(new URL('./push-thread-entry.ts', import.meta.url), { workerData: { options } });
  const answers = new Map<number, (answer: unknown) => void>();
  let invokeEndpoint: string | undefined;
  let asked = 0;
  let stopped: (() => void) | undefined;
  const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the push thread exited (${code}) before it was ready`)));
    worker.on('message', (message: FromThread) => {
      if (message.kind === 'ready') {
        invokeEndpoint = message.invokeEndpoint;
        process.env['LAMBDA_ENDPOINT'] = message.invokeEndpoint;
        process.env['PUSH_FUNCTION_NAME'] = message.functionName;
        resolve();
      } else if (message.kind === 'failed') reject(new Error(`the push thread failed to start: ${message.message}`));
      else if (message.kind === 'answer') answers.get(message.id)?.(message.answer);
      else if (message.kind === 'stopped') stopped?.();
    });
  });
  try {
    await ready;
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  worker.removeAllListeners('error');
  // Its worker logs its own failures and goes on; a thread that dies anyway is said, not hidden.
  worker.on('error', (err) => process.stderr.write(`the push thread failed: ${err.message}\n`));
  const send = (message: ToThread) => worker.postMessage(message);
  const ask = (question: unknown) =>
    new Promise<unknown>((resolve) => {
      const id = ++asked;
      answers.set(id, (answer) => {
        answers.delete(id);
        resolve(answer);
      });
      send({ kind: 'ask', id, question });
    });
  return {
    ask,
    stop: async () => {
      // The worker finishes the invocations it accepted; then the thread ends (a thread that died
      // already has nothing to stop).
      const through = new Promise<void>((resolve) => {
        stopped = resolve;
      });
      send({ kind: 'stop' });
      await Promise.race([through, ended]);
      await worker.terminate();
      await ended;
      // A relay started later in this process must not hand off to a worker that is gone.
      if (process.env['LAMBDA_ENDPOINT'] === invokeEndpoint) {
        delete process.env['LAMBDA_ENDPOINT'];
        delete process.env['PUSH_FUNCTION_NAME'];
      }
    },
    failures: async () => (await ask(FAILURES)) as FailedInvocation[],
  };
}
