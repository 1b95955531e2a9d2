/**
 * The push thread's own module (local/emulators/push-thread.ts starts it): the push stream with the
 * options it was given, stopped when asked; a bench's trace, when named, made here and asked from
 * the parent.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { sendLogsTo } from '../../lib/observability/log.ts';
import { logFileWriter } from '../log-file.ts';
import { startPushStream } from './push-stream.ts';
import type { FromThread, PushThreadOptions, ToThread } from './push-thread.ts';

interface ThreadTrace {
  hooks: NonNullable<Parameters<typeof startPushStream>[0]['trace']>;
  answer(question: unknown): unknown;
}

const port = parentPort!;
const { options } = workerData as { options: PushThreadOptions };
const say = (message: FromThread) => port.postMessage(message);

try {
  const { traceModule, logFile, ...streamOptions } = options;
  // A thread has its own modules, so its own log writer: the same file as the runtime's.
  if (logFile) sendLogsTo(logFileWriter(logFile).write);
  const trace = traceModule ? ((await import(traceModule)) as { threadTrace(): ThreadTrace }).threadTrace() : undefined;
  const stream = await startPushStream({ ...streamOptions, ...(trace ? { trace: trace.hooks } : {}) });
  port.on('message', (message: ToThread) => {
    if (message.kind === 'ask') say({ kind: 'answer', id: message.id, answer: trace?.answer(message.question) });
    else void stream.stop().then(() => say({ kind: 'stopped' }));
  });
  say({ kind: 'ready' });
} catch (err) {
  say({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
}
