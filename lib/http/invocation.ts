/**
 * The HTTP stack's side of the invocation's log context (lib/observability/lambda.ts): the API
 * request id API Gateway gave the request becomes every line's `correlation_id`, the context wraps
 * the whole middy chain, and the metrics are flushed when it ends.
 */
import type { MiddlewareObj } from '@middy/core';
import { inInvocation } from '../observability/lambda.ts';
import type { InvocationContext } from '../observability/log.ts';
import { flushMetrics } from '../observability/metrics.ts';

/** The API request id API Gateway gave the request (the `x-request-id` the client sees). */
export const apiRequestIdOf = (event: unknown): string | undefined =>
  (event as { requestContext?: { requestId?: string } })?.requestContext?.requestId || undefined;

/** The metrics flushed after the chain, answer or error (a middleware's `before` cannot hold a context for the steps after it). */
export function observability<E, R>(): MiddlewareObj<E, R> {
  const end = async () => flushMetrics();
  return { after: end, onError: end };
}

/** A handler run inside its invocation's log context (around the HTTP stack's middy handler). */
export function inInvocationOf<E, C, R>(
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  return (event, context) =>
    inInvocation(context as InvocationContext | undefined, apiRequestIdOf(event), () => handler(event, context));
}
