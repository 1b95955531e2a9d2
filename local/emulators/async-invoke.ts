/**
 * Lambda's Invoke API for asynchronous invocations (`X-Amz-Invocation-Type: Event`), locally: the
 * relay's hand-off to the push worker (lib/events/push-hand-off.ts) is the same signed request it
 * sends to Lambda, answered as Lambda answers it: 202 once the event is queued, then the function
 * runs; a run that throws is run again `retryAttempts` times, and one that still fails goes to the
 * on-failure destination (here: logged and kept in `failures`, as the push failure queue keeps it).
 *
 * What Lambda refuses is refused here too, before anything runs: an unsigned request (403), an
 * unknown function (404 ResourceNotFoundException), a payload over `PUSH.handOffMaxBytes` (413
 * RequestEntityTooLargeException: the hand-off's budget, within Lambda's own limit for an
 * asynchronous invoke), a body that is not JSON (400). A synchronous invoke is not served: nothing
 * here makes one. Lambda waits about a minute, then two, between its retries; here the waits are
 * `retryDelaysMs`, short, so a test sees the failure path through.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PUSH } from '../../lib/core/settings.ts';
import { log } from '../../lib/observability/log.ts';

export type InvokedFunction = (event: unknown) => Promise<unknown>;

export interface AsyncInvokeOptions {
  functions: Readonly<Record<string, InvokedFunction>>;
  /** Lambda's MaximumRetryAttempts of the functions' asynchronous invoke config. */
  retryAttempts: number;
  /** The wait before each retry (the last one repeats). */
  retryDelaysMs?: readonly number[];
  host?: string;
}

/** An invocation that failed every attempt: what the on-failure destination would hold. */
export interface FailedInvocation {
  functionName: string;
  requestId: string;
  event: unknown;
  attempts: number;
  error: string;
}

export interface AsyncInvokeEndpoint {
  /** `http://127.0.0.1:<port>`: LAMBDA_ENDPOINT for the callers. */
  url: string;
  /** The on-failure destination's messages so far. */
  failures: FailedInvocation[];
  /** Waits for every invocation accepted so far to run (and retry) to its end. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** Lambda's error answer: its type in `x-amzn-errortype` and in the body, as the SDK reads either. */
function refuse(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  res.end(JSON.stringify({ Type: 'User', message }));
}

async function bodyOf(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined; // read on, so the answer reaches the client
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function startAsyncInvoke(options: AsyncInvokeOptions): Promise<AsyncInvokeEndpoint> {
  const { functions, retryAttempts, retryDelaysMs = [200, 1000] } = options;
  const failures: FailedInvocation[] = [];
  const running = new Set<Promise<void>>();
  let stopping = false;

  async function run(functionName: string, requestId: string, event: unknown): Promise<void> {
    const fn = functions[functionName]!;
    for (let attempt = 1; ; attempt++) {
      try {
        await fn(event);
        return;
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        if (attempt > retryAttempts || stopping) {
          log.error('async invoke: failed after its retries; kept by the on-failure destination', {
            functionName,
            requestId,
            attempts: attempt,
            error,
          });
          failures.push({ functionName, requestId, event, attempts: attempt, error });
          return;
        }
        const wait = retryDelaysMs[Math.min(attempt - 1, retryDelaysMs.length - 1)] ?? 0;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  const server = createServer((req, res) => {
    void (async () => {
      const name = INVOKE_PATH.exec(new URL(req.url ?? '/', 'http://local').pathname)?.[1];
      const body = await bodyOf(req, PUSH.handOffMaxBytes);
      if (req.method !== 'POST' || name === undefined)
        return refuse(res, 404, 'UnknownOperationException', 'Unknown operation');
      if (!req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 '))
        return refuse(res, 403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
      const functionName = decodeURIComponent(name);
      if (!Object.hasOwn(functions, functionName))
        return refuse(res, 404, 'ResourceNotFoundException', `Function not found: ${functionName}`);
      if (req.headers['x-amz-invocation-type'] !== 'Event')
        return refuse(res, 400, 'InvalidParameterValueException', 'Only asynchronous invocations (Event) are served');
      if (!body)
        return refuse(
          res,
          413,
          'RequestEntityTooLargeException',
          `Request must be smaller than ${PUSH.handOffMaxBytes} bytes for the InvokeAsync operation`,
        );
      let event: unknown;
      try {
        event = JSON.parse(body.toString('utf8'));
      } catch {
        return refuse(res, 400, 'InvalidRequestContentException', 'Could not parse request body into json');
      }
      const requestId = randomUUID();
      res.writeHead(202, { 'x-amzn-requestid': requestId, 'content-length': '0' });
      res.end();
      const invocation = run(functionName, requestId, event).finally(() => running.delete(invocation));
      running.add(invocation);
    })().catch((err: unknown) => {
      log.error('async invoke: request failed', { error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) refuse(res, 500, 'ServiceException', 'Internal error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port, address } = server.address() as AddressInfo;
  const settled = async () => {
    while (running.size > 0) await Promise.all([...running]);
  };
  return {
    url: `http://${address}:${port}`,
    failures,
    settled,
    stop: async () => {
      stopping = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // The callers' kept-alive connections would hold the close open.
      server.closeAllConnections();
      await closed;
      await settled();
    },
  };
}
