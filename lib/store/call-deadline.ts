/**
 * Store calls bounded by the invocation's time left, not by a fixed number. The HTTP stack runs a
 * route under `withCallDeadline(deadline)`, the deadline being the Lambda's remaining time
 * (context.getRemainingTimeInMillis()) less a reserve; every DynamoDB call made within it is
 * aborted when the deadline comes (the SDK does not retry an abort), so the route still has its
 * reserve to find out what became of its writes (an `Idempotency-Key`'s answer committed with the
 * change, lib/idempotency/store.ts) and answer truthfully, instead of being cut off by the
 * function's timeout while a commit may be landing.
 *
 * Calls outside any deadline (workers, scripts, the stack's own bookkeeping after the route) are
 * not touched. The hand-signed AWS calls (lib/aws/signed-request.ts) honour the same deadline.
 */
import { callDeadlines as deadlines } from '../core/call-deadline-scope.ts';

/** Runs `fn` with every store call it makes cut at `deadlineMs` (epoch ms); undefined = no deadline. */
export function withCallDeadline<T>(deadlineMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  return deadlineMs === undefined ? fn() : deadlines.run(deadlineMs, fn);
}

/**
 * The deadline of an invocation's store calls: the function's time left (its Lambda context) less
 * `reserveMs` for the answer; undefined without a context (a script, a test calling a function).
 */
export function deadlineOf(
  context: { getRemainingTimeInMillis?: () => number } | undefined,
  reserveMs: number,
): number | undefined {
  const left = context?.getRemainingTimeInMillis?.();
  return left === undefined ? undefined : Date.now() + left - reserveMs;
}

/**
 * Runs `fn` with `graceMs` more than the deadline it runs under, counted from now if that deadline
 * has passed: for the writes a cut-off route still owes, paid from the reserve kept behind its
 * deadline (ANSWER_RESERVE_MS). The feed writer's gap markers are one: a commit the deadline
 * aborted leaves the slots it took empty, and readers would wait GAP_GRACE_MS before passing them.
 */
export function withDeadlineGrace<T>(graceMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = deadlines.getStore();
  return deadline === undefined ? fn() : deadlines.run(Math.max(deadline, Date.now()) + graceMs, fn);
}

type Handle = (request: unknown, options?: { abortSignal?: unknown }) => Promise<unknown>;

/**
 * Makes an SDK client's request handler (its own instance, made with the client) honour the
 * deadline of the code that calls it: every command goes through its `handle`.
 */
export function applyCallDeadlines(config: { requestHandler?: unknown }): void {
  const handler = config.requestHandler as { handle: Handle };
  const inner = handler.handle.bind(handler);
  handler.handle = async (request, options = {}) => {
    const deadline = deadlines.getStore();
    // A caller that brings its own abort signal has its own bound.
    if (deadline === undefined || options.abortSignal) return inner(request, options);
    const left = deadline - Date.now();
    // Named AbortError, as the SDK names an aborted call, so neither is retried.
    if (left <= 0) throw new DOMException('no time left for a store call', 'AbortError');
    return inner(request, { ...options, abortSignal: AbortSignal.timeout(left) });
  };
}
