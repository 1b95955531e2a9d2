import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import { deliverBatch } from '../../lib/events/delivery/deliver-batch.ts';
import { relayBatch } from '../../lib/events/relay.ts';
import { tableName } from '../../lib/store/client.ts';
import { createDeliveryQueues, type DeliveryQueues, type LocalSqs, startLocalSqs } from '../../local/emulators/sqs.ts';
import { toSqsRecord } from '../../local/emulators/sqs-poller.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { deliveryIdOf, eventStreamRecord } from './queue-harness.ts';
import { createAgent, enableWebhook, startWebhookReceiver } from './support.ts';

/**
 * The DLQ guarantee (docs/events.md, "Retries"): no delivery is dead-lettered before its schedule
 * runs out, however long its endpoint's circuit stays open. The whole clock moves (`Date`, which
 * fauxqs runs on in this process too: its delays and visibility), so the real schedule (9 attempts
 * over 37.6 h) runs in seconds on the real queue, with the queue's real redrive policy
 * (`DELIVERY.maxReceiveCount`), and the worker loop does what Lambda's event source does: receive,
 * run the batch, delete what it did not report.
 *
 * Before issue 40 a held attempt was parked with ChangeMessageVisibility, and every return of the
 * parked message to a still-open circuit spent one of its 20 receives: run against that design,
 * this outage (an endpoint that answers 503 with `Retry-After: 3600`, so its circuit reopens for an
 * hour at every probe) left every delivery `pending` after 2 attempts, its message gone to the DLQ.
 */
delete process.env['DELIVERY_RETRY_DELAYS_SECONDS'];
const STEP_MS = 60_000;

let sqs: LocalSqs;
let queues: DeliveryQueues;
let owner: TestUser;

beforeAll(async () => {
  sqs = await startLocalSqs({});
  queues = await createDeliveryQueues(sqs.client, `${tableName()}-dlq-guarantee`, {
    visibilityTimeoutSeconds: DELIVERY.visibilityTimeoutSeconds,
    maxReceiveCount: DELIVERY.maxReceiveCount,
  });
  process.env['SQS_ENDPOINT'] = sqs.endpoint;
  process.env['DELIVERY_QUEUE_URL'] = queues.queueUrl;
  owner = await createTestUser();
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await sqs?.stop();
});

async function receive(queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return all;
    all.push(...Messages);
  }
}

/** One poll as Lambda's event source makes it: the batch, then the deletes of what it did not keep; the receive counts seen. */
async function pollOnce(): Promise<number[]> {
  const messages = await receive(queues.queueUrl);
  if (messages.length === 0) return [];
  const records = messages.map((m) => toSqsRecord(m, queues.queueArn));
  const kept = new Set(await deliverBatch(records));
  const done = records.filter((r) => !kept.has(r.messageId));
  for (let i = 0; i < done.length; i += 10)
    await sqs.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queues.queueUrl,
        Entries: done.slice(i, i + 10).map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
      }),
    );
  return records.map((r) => Number(r.attributes.ApproximateReceiveCount));
}

describe('the retry schedule through a long circuit-open period', () => {
  it('runs every scheduled attempt over more than 24 h, spends one receive per copy, and dead-letters nothing', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    receiver.answer = () => 503;
    receiver.headers = { 'retry-after': '3600' };
    const events: string[] = [];
    for (let i = 0; i < DELIVERY.circuitFailuresToOpen + 1; i++) {
      const sent = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
      expect(sent.status).toBe(202);
      events.push(sent.body.event_id as string);
    }
    expect(
      await relayBatch(await Promise.all(events.map((e, i) => eventStreamRecord(agentId, e, String(1000 + i))))),
    ).toEqual([]);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const start = Date.now();
    const counts: number[] = [];
    const schedule = DELIVERY.retryDelaysSeconds.reduce((a, b) => a + b, 0) * 1000;
    const deliveries = () =>
      Promise.all(
        events.map(
          async (e) =>
            (await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: deliveryIdOf(e) } }))
              .body,
        ),
      );
    let settled = false;
    // The schedule, its Retry-After pauses and a day to spare; a step at a time, as the queue would see it.
    for (let step = 1; !settled && Date.now() - start < schedule + 48 * 3600_000; step++) {
      counts.push(...(await pollOnce()));
      vi.setSystemTime(Date.now() + STEP_MS);
      if (step % 60 === 0) settled = (await deliveries()).every((d) => d.status !== 'pending');
    }
    counts.push(...(await pollOnce()));

    const final = await deliveries();
    for (const d of final) {
      expect(d).toMatchObject({ status: 'failed', attempt_count: DELIVERY.retryDelaysSeconds.length });
      const started = d.attempts.map((a: { started_at: string }) => Date.parse(a.started_at));
      expect(started.at(-1) - started[0]).toBeGreaterThan(24 * 3600_000);
    }
    expect(DELIVERY.retryDelaysSeconds.length).toBeGreaterThanOrEqual(8);
    // The circuit held attempts again and again (copies that hopped without a POST), yet every
    // copy was received once: the receive count is spent only by the attempt or hop it carried.
    expect(counts.length).toBeGreaterThan(final.length * (DELIVERY.maxReceiveCount + 1));
    expect(Math.max(...counts)).toBe(1);
    expect(receiver.deliveries.length).toBeLessThan(counts.length);
    expect(await receive(queues.deadLetterQueueUrl)).toEqual([]);
    expect(await receive(queues.queueUrl)).toEqual([]);
  }, 240_000);
});
