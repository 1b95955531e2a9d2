import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError, InvariantError } from '../lib/core/errors.ts';
import { httpRoute } from '../lib/http/middleware.ts';
import { ok } from '../lib/http/responses.ts';
import { log } from '../lib/observability/log.ts';
import { flushMetrics, recordDeliveryAttempt, recordVerification } from '../lib/observability/metrics.ts';
import { METRIC, METRICS_NAMESPACE } from '../lib/observability/names.ts';
import { throttlingAsRateLimited } from '../lib/store/throttling.ts';
import { proxyEvent } from '../local/gateway/proxy-event.ts';
import { lambdaContext } from '../local/lambda/context.ts';
import { writtenDuring } from './support/captured-output.ts';
import { routeNamed } from './support/lambda.ts';

/** Everything written to stdout and stderr while `fn` runs, as parsed JSON lines. */
async function captured(fn: () => Promise<unknown>): Promise<Array<Record<string, any>>> {
  return (await writtenDuring(fn))
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

const saved = { ...process.env };
beforeEach(() => {
  process.env['LOG_LEVEL'] = 'info';
  process.env['METRICS_TO_STDOUT'] = 'true';
});
afterEach(() => {
  for (const key of ['LOG_LEVEL', 'METRICS_TO_STDOUT']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

const call = (handler: ReturnType<typeof httpRoute>, requestId: string) => {
  const route = routeNamed('health');
  // A caller as the authorizer would pass it (the stack reads no store for it).
  const caller = { userId: 'u-1', workspaceId: 'w-1', name: 'n', verified: false, operator: false };
  return handler(
    proxyEvent({ route, requestId, caller }),
    lambdaContext('healthFunction', 10),
  ) as Promise<APIGatewayProxyResult>;
};

describe('structured logs', () => {
  it('carry the Lambda request id, the API request id as correlation id, the function name and cold start on every line, with secrets redacted', async () => {
    // Cold start is per process (per module instance): the unit tier runs several files in one
    // process, and another may have invoked a handler already. Fresh instances of the stack and
    // the logger make this invocation the first, as a new Lambda instance's is.
    vi.resetModules();
    const { httpRoute: freshRoute } = await import('../lib/http/middleware.ts');
    const { log: freshLog } = await import('../lib/observability/log.ts');
    const handler = freshRoute({}, async () => {
      freshLog.info('first line', { api_key: 'mk_should_not_appear', count: 2 });
      freshLog.warn('second line', { nested: { webhook_secret: 'whsec_nope' } });
      return ok({});
    });
    const lines = await captured(() => call(handler, 'api-req-1'));
    const ours = lines.filter((l) => l['message'] === 'first line' || l['message'] === 'second line');
    expect(ours).toHaveLength(2);
    for (const line of ours) {
      expect(line).toMatchObject({
        correlation_id: 'api-req-1',
        function_name: 'healthFunction',
        service: 'template-marketplace',
      });
      expect(line['function_request_id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof line['cold_start']).toBe('boolean');
    }
    expect(ours[0]).toMatchObject({ level: 'INFO', api_key: '[redacted]', count: 2, cold_start: true });
    expect(ours[1]).toMatchObject({ level: 'WARN', nested: { webhook_secret: '[redacted]' } });
    expect(JSON.stringify(lines)).not.toMatch(/mk_should_not_appear|whsec_nope/);
  });

  it("do not carry the previous invocation's correlation id, and only the first invocation is a cold start", async () => {
    const handler = httpRoute({}, async () => {
      log.info('each');
      return ok({});
    });
    await captured(() => call(handler, 'api-req-a'));
    const lines = await captured(() => call(handler, 'api-req-b'));
    expect(lines.filter((l) => l['message'] === 'each').map((l) => [l['correlation_id'], l['cold_start']])).toEqual([
      ['api-req-b', false],
    ]);
  });
});

describe('errors keep their cause', () => {
  // DynamoDB Local never throttles: the SDK's own exception class, thrown by the handler, stands in for it.
  const throttled = () => new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} });

  it('store throttling becomes 429 rate_limited with the SDK error as its cause, logged, never shown', async () => {
    const sdkError = throttled();
    expect(throttlingAsRateLimited(sdkError)?.cause).toBe(sdkError);
    expect(throttlingAsRateLimited(new Error('other'))).toBeUndefined();
    const handler = httpRoute({}, async () => {
      throw throttled();
    });
    let body = '';
    const lines = await captured(async () => {
      const res = await call(handler, 'api-req-throttled');
      expect(res.statusCode).toBe(429);
      body = res.body;
    });
    expect(body).not.toContain('Rate exceeded');
    expect(lines.find((l) => l['message'] === 'refused for load')).toMatchObject({
      correlation_id: 'api-req-throttled',
      cause: 'ProvisionedThroughputExceededException: Rate exceeded',
    });
  });

  it('an InvariantError answers 500 internal_error and is logged by its name, with its cause', async () => {
    const handler = httpRoute({}, async () => {
      throw new InvariantError('record vanished after a conditional failure', { cause: new Error('GetItem empty') });
    });
    let res: APIGatewayProxyResult | undefined;
    const lines = await captured(async () => {
      res = await call(handler, 'api-req-invariant');
    });
    expect(res?.statusCode).toBe(500);
    expect(JSON.parse(res!.body).error.code).toBe('internal_error');
    expect(res!.body).not.toContain('vanished');
    expect(lines.find((l) => l['message'] === 'unhandled error')).toMatchObject({
      correlation_id: 'api-req-invariant',
      error: 'InvariantError: record vanished after a conditional failure',
      cause: 'Error: GetItem empty',
    });
  });
});

/** EMF documents among the lines: metric name → { value(s), dimensions }. */
const emf = (lines: Array<Record<string, any>>) =>
  lines
    .filter((l) => l['_aws'])
    .flatMap((l) =>
      (
        l['_aws'].CloudWatchMetrics as Array<{
          Namespace: string;
          Dimensions: string[][];
          Metrics: Array<{ Name: string }>;
        }>
      ).flatMap((group) =>
        group.Metrics.map((m) => ({
          namespace: group.Namespace,
          name: m.Name,
          value: l[m.Name],
          dimensions: Object.fromEntries(group.Dimensions.flat().map((d) => [d, l[d]])),
        })),
      ),
    );

describe('EMF metrics', () => {
  it('count a 429 answer', async () => {
    const handler = httpRoute({}, async () => {
      throw new AppError('rate_limited', 'slow down');
    });
    const lines = await captured(async () => expect((await call(handler, 'r')).statusCode).toBe(429));
    expect(emf(lines)).toContainEqual({
      namespace: METRICS_NAMESPACE,
      name: METRIC.rateLimited,
      value: 1,
      dimensions: { service: 'template-marketplace' },
    });
  });

  it('count delivery attempts, successes, failures by kind and latency; verifications by outcome', async () => {
    const lines = await captured(async () => {
      recordDeliveryAttempt({ ok: true, latencyMs: 120 });
      recordDeliveryAttempt({ ok: false, kind: 'timeout', latencyMs: 10_000 });
      recordVerification('verification_failed');
      flushMetrics();
    });
    const metrics = emf(lines);
    const service = { service: 'template-marketplace' };
    expect(metrics).toContainEqual({
      namespace: METRICS_NAMESPACE,
      name: METRIC.deliveryAttempts,
      value: [1, 1],
      dimensions: service,
    });
    expect(metrics).toContainEqual({
      namespace: METRICS_NAMESPACE,
      name: METRIC.deliverySuccesses,
      value: 1,
      dimensions: service,
    });
    expect(metrics).toContainEqual({
      namespace: METRICS_NAMESPACE,
      name: METRIC.deliveryFailures,
      value: 1,
      dimensions: service,
    });
    expect(metrics).toContainEqual({
      namespace: METRICS_NAMESPACE,
      name: METRIC.deliveryFailures,
      value: 1,
      dimensions: { ...service, kind: 'timeout' },
    });
    expect(metrics).toContainEqual({
      namespace: METRICS_NAMESPACE,
      name: METRIC.deliveryLatency,
      value: [120, 10_000],
      dimensions: service,
    });
    expect(metrics).toContainEqual({
      namespace: METRICS_NAMESPACE,
      name: METRIC.verifications,
      value: 1,
      dimensions: { ...service, outcome: 'verification_failed' },
    });
  });

  it('stay out of the output outside Lambda unless asked for', async () => {
    delete process.env['METRICS_TO_STDOUT'];
    const lines = await captured(async () => {
      recordDeliveryAttempt({ ok: true, latencyMs: 5 });
      flushMetrics();
    });
    expect(emf(lines)).toEqual([]);
  });
});
