import { ProvisionedThroughputExceededException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError, rateLimited } from '../../lib/core/errors.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { db } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { transactWrite } from '../../lib/store/transact.ts';
import { proxyEvent } from '../../local/gateway/proxy-event.ts';
import { lambdaContext } from '../../local/lambda/context.ts';
import { routeNamed } from '../support/lambda.ts';

/** Every 429 a handler produces carries Retry-After, set once in the HTTP stack's error mapping. */
afterEach(() => vi.restoreAllMocks());

/** A caller as the authorizer would pass it (the stack reads no store for it). */
const caller = { userId: 'u-1', workspaceId: 'w-1', name: 'n', verified: false, operator: false };

async function answerOf(fn: () => Promise<never>): Promise<APIGatewayProxyResult> {
  const handler = httpRoute({}, fn);
  const route = routeNamed('health');
  return handler(proxyEvent({ route, caller }), lambdaContext(route.name, 10));
}

const header = (res: APIGatewayProxyResult, name: string) => (res.headers as Record<string, string>)[name];

describe('Retry-After on 429', () => {
  it('comes from AppError.retryAfterSeconds, in whole seconds rounded up', async () => {
    const res = await answerOf(async () => {
      throw rateLimited('slow down', 6.2);
    });
    expect(res.statusCode).toBe(429);
    expect(header(res, 'retry-after')).toBe('7');
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'rate_limited', message: 'slow down' } });
  });

  it('is 1 s for a rate_limited error made without a wait, so no 429 can go without it', async () => {
    const res = await answerOf(async () => {
      throw new AppError('rate_limited', 'busy');
    });
    expect(res.statusCode).toBe(429);
    expect(header(res, 'retry-after')).toBe('1');
  });

  it('is absent from answers that are not 429', async () => {
    const res = await answerOf(async () => {
      throw new AppError('not_found', 'nope');
    });
    expect(res.statusCode).toBe(404);
    expect(header(res, 'retry-after')).toBeUndefined();
    const fine = await httpRoute({}, async () => ok({}))(
      proxyEvent({ route: routeNamed('health'), caller }),
      lambdaContext('health', 10),
    );
    expect(header(fine, 'retry-after')).toBeUndefined();
  });

  it('turns DynamoDB throttling that outlived the SDK retries into 429 rate_limited, not 500', async () => {
    const res = await answerOf(async () => {
      throw new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} });
    });
    expect(res.statusCode).toBe(429);
    expect(header(res, 'retry-after')).toBe('1');
    expect(JSON.parse(res.body).error.code).toBe('rate_limited');
  });

  // DynamoDB Local never throttles and cannot be made to keep a transaction conflicted: the client's
  // send is replaced only to force these two error branches of transactWrite.
  const item = { ConditionCheck: { TableName: 'x', Key: keys.user('u'), ConditionExpression: 'attribute_exists(PK)' } };
  const cancelled = (code: string) =>
    new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: code }] });

  it("gives transactWrite's throttling error a Retry-After", async () => {
    vi.spyOn(db(), 'send').mockRejectedValue(cancelled('ThrottlingError') as never);
    await expect(transactWrite([item])).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
  });

  it('answers a transaction still conflicted after every retry with 429 and Retry-After, not a 500', async () => {
    const send = vi.spyOn(db(), 'send').mockRejectedValue(cancelled('TransactionConflict') as never);
    await expect(transactWrite([item])).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    // The transaction's tries: the client is the worker's one, which another file's work may use meanwhile.
    const tries = send.mock.calls.filter(([command]) => command instanceof TransactWriteCommand);
    expect(tries).toHaveLength(12);
  });
});
