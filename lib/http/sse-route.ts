/**
 * The HTTP stack of a response-streaming route (server-sent events). `prepare` runs first and may
 * throw an AppError, which is answered as a normal JSON error; what it returns then writes the
 * stream. `awslambda` is the global of Lambda's Node.js runtime (local/lambda/streaming.ts installs it
 * for the local runtime and tests).
 */

import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { ROUTE_TIMEOUTS } from '../core/settings.ts';
import { inInvocation } from '../observability/lambda.ts';
import { errorFields, log } from '../observability/log.ts';
import { flushMetrics, recordRateLimited } from '../observability/metrics.ts';
import { withCallDeadline } from '../store/call-deadline.ts';
import { throttlingAsRateLimited } from '../store/throttling.ts';
import type * as z from '../zod.ts';
import { callerFromEvent } from './caller.ts';
import { corsHeaders } from './cors.ts';
import { errorBody, errorHeaders, statusOf } from './errors.ts';
import { ANSWER_RESERVE_MS, lowerCaseHeaders, originOf, parsePathOrNotFound, withRouteSpec } from './middleware.ts';
import { parseQuery } from './validation.ts';

type ResponseStream = Writable;
declare const awslambda: {
  streamifyResponse(
    fn: (event: APIGatewayProxyEvent, stream: ResponseStream, context: Context) => Promise<void>,
  ): unknown;
  HttpResponseStream: {
    from(stream: ResponseStream, metadata: { statusCode: number; headers?: Record<string, string> }): ResponseStream;
  };
};

export interface SseRequest<Q, P> {
  query: Q;
  params: P;
  caller: Caller;
  headers: Record<string, string>;
  context: Context;
}

export interface SseWriter {
  write(chunk: string): void;
  closed(): boolean;
  /** Resolves once what was written has left for the client (or the client is gone). */
  drained(): Promise<void>;
}

type Out<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

export function sseRoute<
  Q extends z.ZodMiniType | undefined = undefined,
  P extends z.ZodMiniType | undefined = undefined,
>(
  spec: { query?: Q; params?: P },
  prepare: (req: SseRequest<Out<Q>, Out<P>>) => Promise<(out: SseWriter) => Promise<void>>,
): unknown {
  const handler = awslambda.streamifyResponse((event, stream, context) => {
    const requestId = event.requestContext?.requestId || randomUUID();
    return inInvocation(context, requestId, async () => {
      // Store calls are bounded as a route's are (lib/store/call-deadline.ts): the head by a route's
      // own time, as a request that is answered at once; the stream by the function's.
      const remainingMs = context?.getRemainingTimeInMillis?.();
      const started = Date.now();
      const streamDeadline = remainingMs === undefined ? undefined : started + remainingMs - ANSWER_RESERVE_MS;
      const headDeadline =
        streamDeadline === undefined
          ? undefined
          : Math.min(streamDeadline, started + ROUTE_TIMEOUTS.defaultTimeoutSeconds * 1000 - ANSWER_RESERVE_MS);
      let run: (out: SseWriter) => Promise<void>;
      try {
        const caller = callerFromEvent(event);
        const params = spec.params ? parsePathOrNotFound(spec.params, event.pathParameters ?? {}) : undefined;
        const query = parseQuery(spec.query, event.queryStringParameters);
        run = await withCallDeadline(headDeadline, () =>
          prepare({
            caller,
            params: params as Out<P>,
            query: query as Out<Q>,
            headers: lowerCaseHeaders(event.headers),
            context,
          }),
        );
      } catch (thrown) {
        const err = throttlingAsRateLimited(thrown) ?? thrown;
        const appError =
          err instanceof AppError
            ? err
            : new AppError('internal_error', 'Something went wrong on our side. Try again later.');
        if (!(err instanceof AppError)) log.error('unhandled error', { requestId, ...errorFields(err) });
        if (appError.code === 'rate_limited') recordRateLimited();
        const out = awslambda.HttpResponseStream.from(stream, {
          statusCode: statusOf(appError),
          headers: {
            ...corsHeaders(originOf(event)),
            'content-type': 'application/json; charset=utf-8',
            'x-request-id': requestId,
            'cache-control': 'no-store',
            ...errorHeaders(appError),
          },
        });
        await endWith(out, JSON.stringify(errorBody(appError)));
        flushMetrics();
        return;
      }
      const out = awslambda.HttpResponseStream.from(stream, {
        statusCode: 200,
        headers: {
          ...corsHeaders(originOf(event)),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          'x-request-id': requestId,
          'x-accel-buffering': 'no',
        },
      });
      let gone = false;
      out.on('close', () => (gone = true));
      out.on('error', () => (gone = true));
      try {
        await withCallDeadline(streamDeadline, () =>
          run({
            write: (chunk) => void (gone || out.write(chunk)),
            closed: () => gone || out.destroyed,
            drained: () => (gone ? Promise.resolve() : whenDrained(out)),
          }),
        );
      } catch (err) {
        // Headers are out: the only honest signal left is ending the stream; the client resumes with Last-Event-ID.
        log.error('stream failed', { requestId, ...errorFields(err) });
      }
      if (!gone) await endWith(out);
      flushMetrics();
    });
  });
  return withRouteSpec(handler, spec);
}

/** Resolves when `stream` has room again (at once if it has), or when it closes. */
function whenDrained(stream: Writable): Promise<void> {
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

function endWith(stream: Writable, chunk?: string): Promise<void> {
  return new Promise((resolve) => {
    stream.once('close', resolve);
    stream.once('finish', resolve);
    stream.once('error', () => resolve());
    if (chunk === undefined) stream.end();
    else stream.end(chunk);
  });
}
