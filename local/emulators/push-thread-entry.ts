/**
 * The push thread's own module (local/emulators/push-thread.ts starts it): the push worker with the
 * options it was given, stopped when asked; a bench's trace, when named, made here and asked from
 * the parent.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { sendLogsTo } from '../../lib/observability/log.ts';
import { logFileWriter } from '../log-file.ts';
import { FAILURES, type FromThread, type PushThreadOptions, type ToThread } from './push-thread.ts';
import { startPushWorker } from './push-worker.ts';

interface ThreadTrace {
  hooks: NonNullable<Parameters<typeof startPushWorker>[0]['trace']>;
  answer(question: unknown): unknown;
}

const port = parentPort!;
const { options } = workerData as { options: PushThreadOptions };
const say = (message: FromThread) => port.postMessage(message);

try {
  const { traceModule, logFile, ...workerOptions } = options;
  // A thread has its own modules, so its own log writer: the same file as the runtime's.
  if (logFile) sendLogsTo(logFileWriter(logFile).write);
  const trace = traceModule ? ((await import(traceModule)) as { threadTrace(): ThreadTrace }).threadTrace() : undefined;
  const worker = await startPushWorker({ ...workerOptions, ...(trace ? { trace: trace.hooks } : {}) });
  port.on('message', (message: ToThread) => {
    if (message.kind === 'ask')
      say({
        kind: 'answer',
        id: message.id,
        answer: message.question === FAILURES ? worker.failures : trace?.answer(message.question),
      });
    else void worker.stop().then(() => say({ kind: 'stopped' }));
  });
  say({ kind: 'ready', invokeEndpoint: worker.invokeEndpoint, functionName: worker.functionName });
} catch (err) {
  say({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
}
