import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takesIdempotencyKey } from '../lib/http/idempotent-methods.ts';
import { type DocumentedRoute, documentedRoutes as routes } from '../lib/route-docs.ts';
import { socketRoutes, workers } from '../lib/routes.ts';
import { routeSampleEvent, sampleEvent } from '../local/demo/sample-event.ts';
import { lambdaContext } from '../local/lambda/context.ts';
import { runAsRoute, runAsSocketRoute, runAsWorker } from '../local/lambda/grants.ts';
import { loadHandler } from '../local/lambda/handlers.ts';
import type { LocalResponseStream, StreamMetadata } from '../local/lambda/streaming.ts';
import { installAwsLambdaGlobal, loadStreamingHandler } from '../local/lambda/streaming.ts';

/**
 * A store that accepts the connection and never answers (DynamoDB paused mid-request): every route
 * of the table still answers before its function's timeout, because every store call a request
 * makes, the route's and the stack's own (the `Idempotency-Key`'s claim and answer), is bounded
 * by the time the function has left (lib/store/call-deadline.ts). In AWS a request held past the
 * timeout is cut off with no answer; locally it was held until the HTTP server gave up (300 s).
 *
 * The store here is a TCP server on 127.0.0.1 that keeps every connection open and says nothing.
 * Each route runs its own `doc.example` with a short function timeout, all at once, with a key
 * where the route takes one.
 */
const TIMEOUT_SECONDS = 4;

let silent: Server;
const sockets = new Set<Socket>();
const saved = process.env['DYNAMODB_ENDPOINT'];

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  process.env['DYNAMODB_ENDPOINT'] = `http://127.0.0.1:${port}`;
  installAwsLambdaGlobal();
});

afterAll(async () => {
  process.env['DYNAMODB_ENDPOINT'] = saved;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

const eventOf = (route: DocumentedRoute): APIGatewayProxyEvent =>
  routeSampleEvent(route, takesIdempotencyKey(route.method) ? { headers: { 'Idempotency-Key': randomUUID() } } : {});

type Answered = { status: number; leftMs: number };

async function answerOf(route: DocumentedRoute): Promise<Answered> {
  const context = lambdaContext(route.name, TIMEOUT_SECONDS);
  if (!route.streaming) {
    const handler = await loadHandler<
      (event: APIGatewayProxyEvent, context: unknown) => Promise<APIGatewayProxyResult>
    >(route.handler);
    const result = await runAsRoute(route, () => handler(eventOf(route), context));
    return { status: result.statusCode, leftMs: context.getRemainingTimeInMillis() };
  }
  // A stream answers with its head: the head must be out by the deadline (then the client goes away).
  const handler = await loadStreamingHandler(route);
  let head: (StreamMetadata & { leftMs: number }) | undefined;
  const stream: LocalResponseStream = new Writable({
    write: (_chunk, _e, cb) => {
      stream.destroy();
      cb();
    },
  });
  stream.setMetadata = (metadata) => {
    head = { ...metadata, leftMs: context.getRemainingTimeInMillis() };
  };
  await runAsRoute(route, () => handler(eventOf(route), stream, context));
  return { status: head?.statusCode ?? 0, leftMs: head?.leftMs ?? context.getRemainingTimeInMillis() };
}

/** A WebSocket route's or the authorizer's answer (their events are events/<name>.json): whether it came in time, and if it failed. */
async function otherAnswerOf(name: string, run: (fn: () => Promise<unknown>) => Promise<unknown>, handlerPath: string) {
  const context = lambdaContext(name, TIMEOUT_SECONDS);
  const handler = await loadHandler<(event: unknown, context: unknown) => Promise<unknown>>(handlerPath);
  const result = await run(() => handler(sampleEvent(name), context)).catch((err: unknown) => ({
    thrown: String(err),
  }));
  return { result, leftMs: context.getRemainingTimeInMillis() };
}

describe('a store that never answers', () => {
  it('every route answers before its function times out: 5xx where it needed the store', async () => {
    // A route still holding its request a while after its timeout is named, not waited for.
    const held = (): Promise<Answered> =>
      new Promise((resolve) => setTimeout(() => resolve({ status: 0, leftMs: -1 }), TIMEOUT_SECONDS * 1000 + 3000));
    const answers = await Promise.all(
      routes.map(async (route) => [route.name, await Promise.race([answerOf(route), held()])] as const),
    );
    const late = answers.filter(([, a]) => a.leftMs <= 0).map(([name]) => name);
    expect(late, 'routes that held the request to their timeout').toEqual([]);
    const needsStore = new Set(routes.filter((r) => r.access !== 'none').map((r) => r.name));
    const wrong = answers.filter(([name, a]) => (needsStore.has(name) ? a.status < 500 : a.status !== 200));
    expect(wrong).toEqual([]);
  }, 30_000);

  it('the push channel routes and the authorizer answer before their timeout too: an error, not a hold', async () => {
    const others = [
      ...socketRoutes.map(
        (route) => () => otherAnswerOf(route.name, (fn) => runAsSocketRoute(route, fn), route.handler),
      ),
      () => otherAnswerOf('authorizer', (fn) => runAsWorker('authorizer', fn), workers.authorizer),
    ];
    const answers = await Promise.all(others.map((answer) => answer()));
    expect(answers.filter((a) => a.leftMs <= 0)).toEqual([]);
    // The authorizer throws (API Gateway answers 500 for it); a push route answers 500 in its error format.
    for (const { result } of answers)
      expect(result).toSatisfy(
        (r: { thrown?: string; statusCode?: number }) => r.thrown !== undefined || (r.statusCode ?? 0) >= 500,
      );
  }, 30_000);
});
