/**
 * The `awslambda` global that Lambda's Node.js runtime gives response-streaming handlers, for
 * the local runtime and tests. A streamed handler is `awslambda.streamifyResponse(fn)`; it writes
 * its status and headers with `awslambda.HttpResponseStream.from(stream, metadata)`.
 */
import type { Writable } from 'node:stream';
import type { Route } from '../../lib/routes.ts';
import { loadHandler } from './handlers.ts';

export interface StreamMetadata {
  statusCode: number;
  headers?: Record<string, string>;
}

/** A Writable that the local server can inspect: metadata arrives before the first byte. */
export interface LocalResponseStream extends Writable {
  setMetadata?(metadata: StreamMetadata): void;
}

export type StreamingHandler = (event: unknown, stream: LocalResponseStream, context: unknown) => Promise<void>;

const STREAMING = Symbol.for('local.streamifyResponse');

export function isStreamingHandler(fn: unknown): fn is StreamingHandler {
  return typeof fn === 'function' && (fn as unknown as Record<symbol, unknown>)[STREAMING] === true;
}

interface AwsLambdaGlobal {
  streamifyResponse(fn: StreamingHandler): StreamingHandler;
  HttpResponseStream: { from(stream: LocalResponseStream, metadata: StreamMetadata): LocalResponseStream };
}

/**
 * The handler of a route the table marks `streaming` (as infra configures its integration). A
 * handler that is not streamified would fail in Lambda under that mode, so it fails here too.
 */
export async function loadStreamingHandler(route: Route): Promise<StreamingHandler> {
  const handler = await loadHandler(route.handler);
  if (!isStreamingHandler(handler))
    throw new Error(
      `${route.name} is streaming in lib/routes.ts, but ${route.handler} is not made with awslambda.streamifyResponse (sseRoute).`,
    );
  return handler;
}

export function installAwsLambdaGlobal(): void {
  const g = globalThis as unknown as { awslambda?: Partial<AwsLambdaGlobal> };
  if (g.awslambda?.streamifyResponse) return;
  // The AWS SDK (@aws/lambda-invoke-store) may already have put an `awslambda` object with only
  // `InvokeStore` on it: add to it rather than skip it.
  g.awslambda = Object.assign(g.awslambda ?? {}, {
    streamifyResponse(fn) {
      Object.defineProperty(fn, STREAMING, { value: true });
      return fn;
    },
    HttpResponseStream: {
      from(stream, metadata) {
        stream.setMetadata?.(metadata);
        return stream;
      },
    },
  } satisfies AwsLambdaGlobal);
}
