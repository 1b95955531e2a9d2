/**
 * Puts the invocation on every log line (Lambda request id, function name, cold start, and the API
 * request id as `correlation_id`) and flushes the metrics when it ends. The local runtime calls the
 * workers without a context; then the lines simply go without it.
 */
import type { MiddlewareObj } from '@middy/core';
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

/** The API request id API Gateway gave the request (the `x-request-id` the client sees). */
export const apiRequestIdOf = (event: unknown): string | undefined =>
  (event as { requestContext?: { requestId?: string } })?.requestContext?.requestId || undefined;

/**
 * The HTTP stack's: the invocation's log context around the whole middy chain (a middleware's
 * `before` cannot hold a context for the steps after it), and the metrics flushed when it ends.
 */
export function observability<E, R>(): MiddlewareObj<E, R> {
  const end = async () => flushMetrics();
  return { after: end, onError: end };
}

/** A handler run inside its invocation's log context (for the HTTP stack's middy handler). */
export function inInvocationOf<E, C, R>(
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  return (event, context) =>
    inInvocation(context as InvocationContext | undefined, apiRequestIdOf(event), () => handler(event, context));
}

/** The same for a plain handler (the workers and the authorizer). */
export function observed<E, R>(
  fn: (event: E, context?: InvocationContext) => Promise<R>,
): (event: E, context?: InvocationContext) => Promise<R> {
  return (event, context) =>
    inInvocation(context, apiRequestIdOf(event), async () => {
      try {
        return await fn(event, context);
      } finally {
        flushMetrics();
      }
    });
}
