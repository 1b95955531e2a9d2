/**
 * Store calls bounded by the invocation's time left, not by a fixed number. The HTTP stack runs a
 * route under `withCallDeadline(deadline)`, the deadline being the Lambda's remaining time
 * (context.getRemainingTimeInMillis()) less a reserve; every DynamoDB call made within it is
 * aborted when the deadline comes (the SDK does not retry an abort), so the route still has its
 * reserve to find out what became of its writes (an `Idempotency-Key`'s answer committed with the
 * change, lib/idempotency/records.ts) and answer truthfully, instead of being cut off by the
 * function's timeout while a commit may be landing.
 *
 * Calls outside any deadline (workers, scripts, the stack's own bookkeeping after the route) are
 * not touched.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const deadlines = new AsyncLocalStorage<number>();

/** Runs `fn` with every store call it makes cut at `deadlineMs` (epoch ms); undefined = no deadline. */
export function withCallDeadline<T>(deadlineMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  return deadlineMs === undefined ? fn() : deadlines.run(deadlineMs, fn);
}

/** The error of a call started after the deadline: named AbortError, as the SDK names an aborted one, so neither is retried. */
const pastDeadline = (): Error => Object.assign(new Error('store call not started: the request has no time left'), { name: 'AbortError' });

interface RequestHandlerLike {
  handle(request: unknown, options?: { abortSignal?: unknown; [option: string]: unknown }): Promise<unknown>;
}

/**
 * Makes an SDK client's request handler honour the deadline of the code that calls it. The SDK
 * reads `config.requestHandler` on every call, so wrapping it once covers every command.
 */
export function applyCallDeadlines(config: { requestHandler?: unknown }): void {
  const inner = config.requestHandler as RequestHandlerLike | undefined;
  if (!inner || typeof inner.handle !== 'function') throw new Error('this SDK client has no request handler to bound');
  const handle: RequestHandlerLike['handle'] = async (request, options = {}) => {
    const deadline = deadlines.getStore();
    if (deadline === undefined) return inner.handle(request, options);
    const left = deadline - Date.now();
    if (left <= 0) throw pastDeadline();
    const timeout = AbortSignal.timeout(left);
    const given = options.abortSignal instanceof AbortSignal ? options.abortSignal : undefined;
    return inner.handle(request, { ...options, abortSignal: given ? AbortSignal.any([given, timeout]) : timeout });
  };
  // The handler keeps its other members (metadata, destroy, updateHttpClientConfig): only `handle` is bounded.
  config.requestHandler = Object.assign(Object.create(inner) as object, { handle });
}
