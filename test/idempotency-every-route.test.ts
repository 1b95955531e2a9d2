import { randomUUID } from 'node:crypto';
import type { MiddlewareStack } from '@smithy/types';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyHash } from '../lib/http/idempotency.ts';
import { takesIdempotencyKey } from '../lib/http/idempotent-methods.ts';
import { db } from '../lib/store/client.ts';
import { routeSampleEvent, routesInSampleOrder } from '../local/demo/sample-event.ts';
import { invokeRoute } from '../local/gateway/proxy-event.ts';
import { startDemoRuntime } from './support/demo-runtime.ts';

/**
 * docs/api.md, "Idempotency": every route that changes something (every method but GET) commits
 * its answer under the request's `Idempotency-Key` with its change, so a change whose commit reply
 * was lost is answered with its own answer, and a retry under the same key gets that answer and
 * acts no second time. Driven by the route table: each such route runs its own `doc.example` (the
 * request every row declares and test/local/samples-run.test.ts runs) against the demo seed, so a
 * route added later is covered here without a line of this file, and one whose change does not
 * carry its answer fails by name.
 *
 * A reply lost after DynamoDB committed (the socket timed out, the function's deadline cut it
 * off) cannot be produced on demand against DynamoDB Local: a middleware on the real client lets
 * the write that carries the request's answer reach DynamoDB Local and commit, then throws the
 * timeout the SDK would have thrown in place of the reply. Everything else is real.
 */
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  stop = await startDemoRuntime();
}, 180_000);
afterAll(async () => {
  await stop?.();
});

type Stack = MiddlewareStack<object, object>;
const stack = () => db().middlewareStack as unknown as Stack;
const LOSE_REPLY = 'test-lose-sealed-reply';
afterEach(() => {
  stack().remove(LOSE_REPLY);
});

/**
 * The write that carries the answer under `key` (whatever command it is) commits, then its reply
 * is lost. Returns a probe: whether such a write was made.
 */
function loseReplyOfWriteSealing(key: string): () => boolean {
  const hash = idempotencyKeyHash(key);
  let seen = false;
  stack().add(
    (next, context) => async (args) => {
      const command = (context as { commandName?: string }).commandName ?? '';
      // The stack's own claim is a PutCommand of the key alone; the seal rides on the route's change.
      const mine = !seen && /Transact|Batch/.test(command) && JSON.stringify(args.input).includes(hash);
      if (!mine) return next(args);
      seen = true;
      await next(args);
      throw Object.assign(new Error('socket timed out before the reply'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
    },
    { step: 'initialize', name: LOSE_REPLY },
  );
  return () => seen;
}

const changing = routesInSampleOrder().filter((r) => takesIdempotencyKey(r.method));

const send = (route: (typeof changing)[number], key: string): Promise<APIGatewayProxyResult> =>
  invokeRoute(route, routeSampleEvent(route, { headers: { 'Idempotency-Key': key } }));

describe('every route that changes something, its commit reply lost', () => {
  it('the table has such routes (the list below is the table, not a copy)', () => {
    expect(changing.length).toBeGreaterThan(20);
  });

  it.each(changing.map((r) => [r.name, r] as const))(
    '%s: answered with what it committed; the retry gets that answer and acts no second time',
    async (name, route) => {
      const key = randomUUID();
      const lost = loseReplyOfWriteSealing(key);
      const first = await send(route, key);
      expect(lost(), `${name} made no write carrying its answer: its change is not sealed`).toBe(true);
      stack().remove(LOSE_REPLY);
      expect(first.statusCode, first.body).toBeGreaterThanOrEqual(200);
      expect(first.statusCode, first.body).toBeLessThan(300);
      const retry = await send(route, key);
      expect({
        status: retry.statusCode,
        body: retry.body,
        location: retry.headers?.['location'],
        replayed: retry.headers?.['idempotency-replayed'],
      }).toEqual({
        status: first.statusCode,
        body: first.body,
        location: first.headers?.['location'],
        replayed: 'true',
      });
    },
  );
});
