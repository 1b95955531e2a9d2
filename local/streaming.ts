/**
 * The `awslambda` global that Lambda's Node.js runtime gives response-streaming handlers, for
 * the local runtime and tests. A streamed handler is `awslambda.streamifyResponse(fn)`; it writes
 * its status and headers with `awslambda.HttpResponseStream.from(stream, metadata)`.
 */
import type { Writable } from 'node:stream';

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
