import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import { type EventPipeline, startEventPipeline } from '../../local/emulators/event-pipeline.ts';
import { startLocalSqs } from '../../local/emulators/sqs.ts';
import { UNLIMITED_KEY_LIMITS } from '../../local/gateway/key-throttle.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { queueDepth } from '../support/queue-depth.ts';
import {
  createAgent,
  createContract,
  deliveriesOf,
  enableWebhook,
  publishTemplate,
  SIMPLE_SCHEMA,
  startWebhookReceiver,
  waitFor,
} from './support.ts';

/**
 * docs/events.md: every POST is one numbered attempt, counted once, however many forced retries
 * of one delivery run at once. 60 `POST …/retry {"force": true}` go through the local API Gateway
 * 20 at a time while the whole pipeline (stream → relay → fauxqs → delivery worker, four
 * concurrent batches of 10) posts to a real receiver on 127.0.0.1 that holds each request a
 * moment, so the attempts overlap. Before the attempt was taken ahead of its POST, the receiver
 * counted 80-odd POSTs for 61 recorded attempts: writers that lost the count's condition eight
 * times threw after their POST, and their messages came back after the visibility timeout and
 * posted again.
 */
// 60 requests at once are more than one key's usage plan allows (docs/limits.md); the throttle has its own tests.
const api = useLocalApi({ keyLimits: UNLIMITED_KEY_LIMITS });
const RETRIES = 60;
const AT_ONCE = 20;
/**
 * The deployed queue's (25 s): a message whose attempt went unrecorded comes back after it and posts
 * again. A shorter one would make SQS hand out messages whose batch is still running, each a
 * further (correctly counted) attempt, and the count would no longer be 1 + 60.
 */
const VISIBILITY_SECONDS = DELIVERY.visibilityTimeoutSeconds;

let pipeline: EventPipeline;
let owner: TestUser;

beforeAll(async () => {
  process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';
  pipeline = await startEventPipeline({
    tableName: process.env['TABLE_NAME']!,
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
    visibilityTimeoutSeconds: VISIBILITY_SECONDS,
    concurrency: 4,
  });
  owner = await createTestUser();
});

afterAll(async () => {
  await pipeline?.stop();
});

async function inWaves<T>(count: number, width: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await one(i);
      }
    }),
  );
  return results;
}

describe('forced retries at 20-way', () => {
  it('one POST, one recorded attempt: the receiver counts exactly the attempts the record numbers', async () => {
    const receiver = await startWebhookReceiver();
    receiver.answer = async () => {
      await new Promise((r) => setTimeout(r, 100));
      return 200;
    };
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    const contractId = await createContract(owner, agentId, await publishTemplate(owner, SIMPLE_SCHEMA));
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    const [delivered] = await waitFor(async () => {
      const list = await deliveriesOf(owner, agentId);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'the first delivery');
    expect(receiver.deliveries).toHaveLength(1);

    const statuses = await inWaves(RETRIES, AT_ONCE, async () => {
      const res = await fetch(`${api.url}/api/v1/agents/${agentId}/deliveries/${delivered.id}/retry`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ force: true }),
      });
      await res.arrayBuffer();
      return res.status;
    });
    expect(statuses).toEqual(Array(RETRIES).fill(202));

    const detail = async () =>
      (await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: delivered.id } })).body;
    await waitFor(
      async () => ((await detail()).attempt_count >= 1 + RETRIES ? true : undefined),
      'every forced retry recorded',
      (VISIBILITY_SECONDS + 60) * 1000,
    );
    // A message whose attempt went unrecorded would stay in flight and come back after its
    // visibility timeout to post again: wait until the queue holds no message in any state.
    const sqs = await startLocalSqs({ endpoint: pipeline.sqsEndpoint });
    try {
      await waitFor(
        async () => ((await queueDepth(sqs.client, pipeline.queueUrl)) === 0 ? true : undefined),
        'an empty delivery queue',
        (VISIBILITY_SECONDS + 60) * 1000,
      );
    } finally {
      await sqs.stop();
    }

    const record = await detail();
    const posts = receiver.deliveries.length;
    expect({ posts, attempts: record.attempt_count }).toEqual({ posts: 1 + RETRIES, attempts: 1 + RETRIES });
    expect(record.status).toBe('succeeded');
    // The history keeps the newest 50, numbered without a gap or a repeat up to the count.
    const numbers = record.attempts.map((a: { attempt: number }) => a.attempt);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => record.attempt_count - 49 + i));
    expect(record.attempts.every((a: { status_code: number }) => a.status_code === 200)).toBe(true);
  }, 180_000);
});
