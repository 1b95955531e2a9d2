/**
 * The push worker, locally: functions/workers/push.ts inside its grant, behind the local Invoke API
 * (async-invoke.ts) that the relay's hand-off calls (lib/events/push-hand-off.ts), with the retries
 * and the failure path of its deployed asynchronous invoke config (infra/push-stack.ts). No stream
 * poller of its own: as in AWS, the table's stream has two readers, the relay and the search
 * indexer (local/emulators/event-pipeline.ts). The worker posts to PUSH_CONNECTIONS_ENDPOINT: the
 * local API's own URL, where local/gateway/push-gateway.ts serves @connections.
 *
 * It sets LAMBDA_ENDPOINT and PUSH_FUNCTION_NAME for the relay of this process (the push thread's
 * parent sets them for its own, local/emulators/push-thread.ts).
 */
import { PUSH } from '../../lib/core/settings.ts';
import type { PushHandOff } from '../../lib/events/push/slots.ts';
import { workers } from '../../lib/routes.ts';
import { lambdaContext } from '../lambda/context.ts';
import { runAsWorker } from '../lambda/grants.ts';
import { loadHandler } from '../lambda/handlers.ts';
import { type AsyncInvokeEndpoint, startAsyncInvoke } from './async-invoke.ts';

/** The push worker's name locally (infra names it per stage: infra/lambda-function.ts, pushFunctionName). */
export const LOCAL_PUSH_FUNCTION_NAME = 'template-marketplace-local-push';

export interface PushWorkerOptions {
  /** The local API's URL (its @connections API). */
  connectionsEndpoint: string;
  /** A bench's trace: each hand-off as the worker is invoked with it. */
  trace?: { handed(handOff: PushHandOff): void };
  /** The waits between Lambda's retries of a failed run (short locally; async-invoke.ts). */
  retryDelaysMs?: readonly number[];
}

export interface PushWorker {
  /** The relay's LAMBDA_ENDPOINT and PUSH_FUNCTION_NAME. */
  invokeEndpoint: string;
  functionName: string;
  /** The runs that failed after their retries (the push failure queue's messages). */
  failures: AsyncInvokeEndpoint['failures'];
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPushWorker(options: PushWorkerOptions): Promise<PushWorker> {
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = options.connectionsEndpoint;
  const push = await loadHandler<(e: PushHandOff, c: unknown) => Promise<void>>(workers.push);
  const endpoint = await startAsyncInvoke({
    functions: {
      [LOCAL_PUSH_FUNCTION_NAME]: (event) => {
        options.trace?.handed(event as PushHandOff);
        return runAsWorker('push', () =>
          push(event as PushHandOff, lambdaContext('push', PUSH.functionTimeoutSeconds)),
        );
      },
    },
    retryAttempts: PUSH.handOffRetryAttempts,
    ...(options.retryDelaysMs ? { retryDelaysMs: options.retryDelaysMs } : {}),
  });
  process.env['LAMBDA_ENDPOINT'] = endpoint.url;
  process.env['PUSH_FUNCTION_NAME'] = LOCAL_PUSH_FUNCTION_NAME;
  return {
    invokeEndpoint: endpoint.url,
    functionName: LOCAL_PUSH_FUNCTION_NAME,
    failures: endpoint.failures,
    settled: endpoint.settled,
    stop: async () => {
      await endpoint.stop();
      // A relay started later in this process must not hand off to a worker that is gone.
      if (process.env['LAMBDA_ENDPOINT'] === endpoint.url) {
        delete process.env['LAMBDA_ENDPOINT'];
        delete process.env['PUSH_FUNCTION_NAME'];
      }
    },
  };
}
