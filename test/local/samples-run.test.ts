import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { socketRoutes } from '../../lib/routes.ts';
import { DEMO_CALLER } from '../../local/demo/identity.ts';
import { routesInSampleOrder, sampleEvent } from '../../local/demo/sample-event.ts';
import { invokeFunction } from '../../local/invoke.ts';
import type { LocalResponseStream, StreamMetadata } from '../../local/lambda/streaming.ts';
import { freePort } from '../../local/ports.ts';
import { startDemoRuntime } from '../support/demo-runtime.ts';

const root = join(import.meta.dirname, '../..');
const sample = sampleEvent;
const sampled = routesInSampleOrder();

/** Runs a streaming sample until its head is out, then goes away as a client would. */
async function streamHead(name: string): Promise<StreamMetadata> {
  let head: StreamMetadata | undefined;
  const stream: LocalResponseStream = new Writable({
    write: (_chunk, _e, cb) => {
      stream.destroy();
      cb();
    },
  });
  stream.setMetadata = (metadata) => (head = metadata);
  await invokeFunction(name, sample(name), stream);
  return head!;
}

// A store of its own, fresh as `npm start`'s first run (test/support/demo-runtime.ts).
let stop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  stop = await startDemoRuntime();
}, 180_000);

afterAll(async () => {
  await stop?.();
});

describe("every function's sample runs against a fresh local runtime", () => {
  it.each(sampled.filter((r) => !r.streaming).map((r) => r.name))('%s answers 2xx', async (name) => {
    const result = (await invokeFunction(name, sample(name))) as APIGatewayProxyResult;
    expect(result.statusCode, result.body).toBeGreaterThanOrEqual(200);
    expect(result.statusCode, result.body).toBeLessThan(300);
  });

  it.each(sampled.filter((r) => r.streaming).map((r) => r.name))('%s opens its stream (200)', async (name) => {
    expect((await streamHead(name)).statusCode).toBe(200);
  });

  // $connect takes a slot of the demo agent for the sample's connection id, $disconnect frees it; the
  // sync then names a connection that holds none: its error frame gets 410 (gone), as in AWS, and it answers 200.
  it.each(socketRoutes.map((r) => r.name).sort())('%s (push channel) answers 200', async (name) => {
    const result = (await invokeFunction(name, sample(name))) as { statusCode: number; body?: string };
    expect(result.statusCode, result.body).toBe(200);
  });

  it('authorizer: the demo key is allowed, as the demo user', async () => {
    const result = (await invokeFunction('authorizer', sample('authorizer'))) as APIGatewayAuthorizerResult;
    expect(result.principalId).toBe(DEMO_CALLER.userId);
    expect(result.policyDocument.Statement.every((s) => s.Effect === 'Allow')).toBe(true);
  });

  it.each(['relay', 'searchIndexer', 'deliver'])('%s takes its batch with no item failures', async (name) => {
    expect(await invokeFunction(name, sample(name))).toMatchObject({ batchItemFailures: [] });
  });

  it("push takes its hand-off (the relay's asynchronous invoke: an agent with its new feed slots)", async () => {
    // Lambda's asynchronous invocation has no answer to give: the worker resolves, or throws to be retried.
    await expect(invokeFunction('push', sample('push'))).resolves.toBeUndefined();
  });

  it('trendRollover runs', async () => {
    expect(await invokeFunction('trendRollover', sample('trendRollover'))).toMatchObject({ moved: expect.any(Number) });
  });
});

describe('npm run invoke', () => {
  const run = (args: string[], env: Record<string, string>) =>
    promisify(execFile)(process.execPath, [join(root, 'scripts/invoke.ts'), ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    });

  it('-- authorizer uses the demo key of events/authorizer.json', async () => {
    const { stdout } = await run(['authorizer'], {});
    expect(JSON.parse(stdout)).toMatchObject({
      principalId: DEMO_CALLER.userId,
      policyDocument: { Statement: [{ Effect: 'Allow' }] },
    });
  }, 60_000);

  it('-- retryDelivery finds the delivery queue of the running runtime', async () => {
    const { stdout } = await run(['retryDelivery'], {});
    expect(JSON.parse(stdout)).toMatchObject({ statusCode: 202 });
  }, 60_000);

  it("-- pushSync posts to the running runtime's @connections (found, not set) and answers 200", async () => {
    const { stdout } = await run(['pushSync'], { PUSH_CONNECTIONS_ENDPOINT: '' });
    expect(JSON.parse(stdout)).toMatchObject({ statusCode: 200 });
  }, 60_000);

  it('without a running store says so in one sentence and exits 1', async () => {
    const failed = await run(['getAgent'], {
      DYNAMODB_ENDPOINT: '',
      TABLE_NAME: '',
      LOCAL_DYNAMODB_PORT: String(await freePort()),
    }).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(failed).toMatchObject({ code: 1, stdout: '' });
    expect((failed as { stderr: string }).stderr).toMatch(
      /^No DynamoDB answers at http:\/\/127\.0\.0\.1:\d+: start the local runtime first \(npm start\); with DATA_DIR set as npm start had it, this command finds its ports itself\.\n$/,
    );
  }, 60_000);
});
