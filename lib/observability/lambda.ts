/**
 * Puts the invocation on every log line (Lambda request id, function name, cold start, and the API
 * request id as `correlation_id`) and flushes the metrics when it ends. The local runtime calls the
 * workers without a context; then the lines simply go without it.
 */
import type { MiddlewareObj } from '@middy/core';
import { type InvocationContext, setLogContext } from './log.ts';
import { flushMetrics } from './metrics.ts';

export function startInvocation(context: InvocationContext | undefined, correlationId?: string): void {
  setLogContext(context, correlationId);
}

/** The API request id API Gateway gave the request (the `x-request-id` the client sees). */
export const apiRequestIdOf = (event: unknown): string | undefined =>
  (event as { requestContext?: { requestId?: string } })?.requestContext?.requestId || undefined;

/** The same as middy middleware, for the HTTP stack. */
export function observability<E, R>(): MiddlewareObj<E, R> {
  const end = async () => flushMetrics();
  return {
    before: async (request) =>
      startInvocation(request.context as InvocationContext | undefined, apiRequestIdOf(request.event)),
    after: end,
    onError: end,
  };
}

/** The same for a plain handler (the workers and the authorizer). */
export function observed<E, R>(
  fn: (event: E, context?: InvocationContext) => Promise<R>,
): (event: E, context?: InvocationContext) => Promise<R> {
  return async (event, context) => {
    startInvocation(context, apiRequestIdOf(event));
    try {
      return await fn(event, context);
    } finally {
      flushMetrics();
    }
  };
}
