/**
 * Puts the invocation on every log line (Lambda request id, function name, cold start, and a
 * correlation id where the event has one) and flushes the metrics when it ends. The local runtime
 * hands every worker a context as Lambda does (local/lambda/context.ts); a call without one (a
 * test calling a handler directly) logs its lines without it. What the HTTP stack adds (middy, the
 * API request id as `correlation_id`) is in lib/http/invocation.ts: nothing here knows API Gateway.
 */
import { type InvocationContext, withLogContext } from './log.ts';
import { flushMetrics } from './metrics.ts';

/** Runs one invocation with its log context (withLogContext); the HTTP stack, SSE and the workers all enter here. */
export function inInvocation<T>(
  context: InvocationContext | undefined,
  correlationId: string | undefined,
  fn: () => T,
): T {
  return withLogContext(context, correlationId, fn);
}

/** A plain handler (the workers and the authorizer) run in its invocation's log context, its metrics flushed after. */
export function observed<E, R>(
  fn: (event: E, context?: InvocationContext) => Promise<R>,
): (event: E, context?: InvocationContext) => Promise<R> {
  return (event, context) =>
    inInvocation(context, undefined, async () => {
      try {
        return await fn(event, context);
      } finally {
        flushMetrics();
      }
    });
}
