import { GetQueueAttributesCommand, type Message, PurgeQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_SEND_DELAY_SECONDS, sendLater, sendLaterAll } from '../../lib/events/delivery/queue.ts';
import { workers } from '../../lib/routes.ts';
import { db, tableName } from '../../lib/store/client.ts';
import { createDeliveryQueues, type DeliveryQueues, type LocalSqs, startLocalSqs } from '../../local/emulators/sqs.ts';
import { toSqsRecord } from '../../local/emulators/sqs-poller.ts';
import { loadHandler } from '../../local/lambda/handlers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { eventStreamRecord } from './queue-harness.ts';
import {
  createAgent,
  createContract,
  deliveriesOf,
  enableWebhook,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
  startWebhookReceiver,
} from './support.ts';

/**
 * The relay and delivery handlers driven by hand, with real fauxqs queues and no pollers, to
 * force what the pipeline only does by chance: the same stream record twice, copies of one
 * delivery racing each other, a webhook disabled between relay and delivery, a failed enqueue.
 */
let sqs: LocalSqs;
let queues: DeliveryQueues;
let owner: TestUser;
let templateId: string;
let relay: (e: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;
let deliver: (e: SQSEvent) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  sqs = await startLocalSqs({});
  queues = await createDeliveryQueues(sqs.client, tableName(), { visibilityTimeoutSeconds: 30, maxReceiveCount: 20 });
  process.env['SQS_ENDPOINT'] = sqs.endpoint;
  process.env['DELIVERY_QUEUE_URL'] = queues.queueUrl;
  relay = await loadHandler(workers.relay);
  deliver = await loadHandler(workers.deliver);
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

// Each test starts on an empty queue. With no poller, nothing deletes what a test handled (a Lambda
// event source mapping would), and a message the worker parked (a retry after the 302, a copy found
// not due) comes back when its visibility runs out: in a later test of this file, whose "nothing
// was sent" it would contradict (seen: a message received a second time, ReceiveCount 2).
afterEach(async () => {
  await sqs.client.send(new PurgeQueueCommand({ QueueUrl: queues.queueUrl }));
});

afterAll(async () => {
  await sqs?.stop();
});

const streamRecordOf = (agentId: string, eventId: string, sequence = '1000') =>
  eventStreamRecord(agentId, eventId, sequence);

async function receiveAll(queueUrl = queues.queueUrl): Promise<Message[]> {
  const { Messages = [] } = await sqs.client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages;
}

async function fundedAgent(answerDelayMs = 0) {
  const receiver = await startWebhookReceiver();
  const agentId = await createAgent(owner);
  await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
  if (answerDelayMs) {
    const answer = receiver.answer;
    // Holds each request open so the copies overlap.
    receiver.answer = async (d) => {
      await new Promise((r) => setTimeout(r, answerDelayMs));
      return answer(d);
    };
  }
  const contractId = await createContract(owner, agentId, templateId);
  await invoke('fundContract', { caller: owner, params: { id: contractId } });
  const [event] = await feedOf(owner, agentId);
  return { receiver, agentId, event, record: await streamRecordOf(agentId, event.id) };
}

describe('duplicates never make two records, and every post is counted once', () => {
  it('the same stream record relayed twice: one delivery record; racing copies of its message: each post is one attempt in the history', async () => {
    const { receiver, agentId, event, record } = await fundedAgent(200);
    // One after the other, as the stream hands a record over again (never two relays at once).
    expect(await relay({ Records: [record] })).toEqual({ batchItemFailures: [] });
    expect(await relay({ Records: [record] })).toEqual({ batchItemFailures: [] });
    expect(await deliveriesOf(owner, agentId)).toHaveLength(1);

    const messages = await receiveAll();
    expect(messages.length).toBeGreaterThanOrEqual(1);
    // SQS may also hand out a copy of a message under another id: add one of those.
    const copies = [...messages, { ...messages[0]!, MessageId: 'copy-of-the-first-message' }].map((m) =>
      toSqsRecord(m, queues.queueArn),
    );
    const responses = await Promise.all(copies.map((copy) => deliver({ Records: [copy] })));
    // A copy that read the record while the first POST was in flight found it not due and was parked;
    // when it comes back it finds the delivery done.
    const parked = copies.filter((_, i) => responses[i]!.batchItemFailures.length > 0);
    expect(parked.length).toBeLessThan(copies.length);
    expect(await deliver({ Records: parked })).toEqual({ batchItemFailures: [] });

    // docs/events.md, "Duplicates": a copy takes the scheduled slot before it POSTs, so copies
    // that overlap make one POST between them, counted once.
    const posts = receiver.deliveries.length;
    expect(posts).toBe(1);
    expect(new Set(receiver.deliveries.map((d) => d.json.id))).toEqual(new Set([event.id]));
    const list = await deliveriesOf(owner, agentId);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'succeeded', attempts: posts, event_id: event.id });
    const detail = await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: list[0].id } });
    expect(
      detail.body.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
    ).toEqual(Array.from({ length: posts }, (_, i) => [i + 1, 200]));
  });

  it('a webhook disabled after the relay ran: no post, the record ends failed with the reason', async () => {
    const { receiver, agentId, record } = await fundedAgent();
    await relay({ Records: [record] });
    expect((await invoke('disableWebhook', { caller: owner, params: { id: agentId } })).status).toBe(200);
    const messages = await receiveAll();
    const response = await deliver({ Records: messages.map((m) => toSqsRecord(m, queues.queueArn)) });
    expect(response.batchItemFailures).toEqual([]);
    expect(receiver.deliveries).toHaveLength(0);
    const [failed] = await deliveriesOf(owner, agentId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 0 });
    expect(failed.last_error).toMatch(/not enabled/);
  });

  it('a failed enqueue is reported as a batch item failure, and the retried record is sent', async () => {
    const { agentId, record } = await fundedAgent();
    const url = process.env['DELIVERY_QUEUE_URL']!;
    process.env['DELIVERY_QUEUE_URL'] = url.replace(/[^/]+$/, 'no-such-queue');
    try {
      expect(await relay({ Records: [record] })).toEqual({ batchItemFailures: [{ itemIdentifier: '1000' }] });
    } finally {
      process.env['DELIVERY_QUEUE_URL'] = url;
    }
    expect(await relay({ Records: [record] })).toEqual({ batchItemFailures: [] });
    const messages = await receiveAll();
    expect(messages.map((m) => JSON.parse(m.Body!).agent_id)).toEqual([agentId]);
  });

  it('a redirect is a failed attempt and is not followed', async () => {
    const { receiver, agentId, record } = await fundedAgent();
    const elsewhere = await startWebhookReceiver();
    receiver.answer = () => 302;
    receiver.headers = { location: elsewhere.url };
    await relay({ Records: [record] });
    const messages = await receiveAll();
    const response = await deliver({ Records: messages.map((m) => toSqsRecord(m, queues.queueArn)) });
    // Done with this copy: the next attempt is a delayed copy, not this one held in flight.
    expect(response.batchItemFailures).toEqual([]);
    const { Attributes = {} } = await sqs.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queues.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessagesDelayed', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(Attributes).toMatchObject({
      ApproximateNumberOfMessagesDelayed: '1',
      ApproximateNumberOfMessagesNotVisible: '1',
    });
    expect(receiver.deliveries).toHaveLength(1);
    expect(elsewhere.deliveries).toHaveLength(0);
    const [pending] = await deliveriesOf(owner, agentId);
    expect(pending).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 302,
      last_error: 'endpoint answered HTTP 302',
    });
    const detail = await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: pending.id } });
    expect(detail.body.attempts).toEqual([
      {
        attempt: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        status_code: 302,
        error: 'redirect',
        response_body: '{"received":false}',
      },
    ]);
  });

  it('an unreadable image fails its own record only; the others in the batch are sent', async () => {
    const good = await fundedAgent();
    const bad = await fundedAgent();
    // An attribute value without a type: unmarshall refuses it.
    const broken = {
      ...bad.record,
      dynamodb: {
        ...bad.record.dynamodb,
        SequenceNumber: '2000',
        NewImage: { ...bad.record.dynamodb!.NewImage, data: {} },
      },
    } as unknown as DynamoDBRecord;
    expect(await relay({ Records: [broken, good.record] })).toEqual({
      batchItemFailures: [{ itemIdentifier: '2000' }],
    });
    expect((await receiveAll()).map((m) => JSON.parse(m.Body!).event_id)).toEqual([good.event.id]);
  });

  it('records that are not new event rows are not relayed', async () => {
    const { record } = await fundedAgent();
    const modify = { ...record, eventName: 'MODIFY' as const };
    const notEvent = {
      ...record,
      dynamodb: { ...record.dynamodb, NewImage: { ...record.dynamodb!.NewImage, entity: { S: 'delivery' } } },
    };
    expect(await relay({ Records: [modify, notEvent] })).toEqual({ batchItemFailures: [] });
    expect(await receiveAll()).toEqual([]);
  });

  it('a batch writes the records it finds missing; a retried batch after attempts rewrites none and sends nothing again', async () => {
    const funded = [await fundedAgent(), await fundedAgent(), await fundedAgent()];
    const off = await fundedAgent();
    expect((await invoke('disableWebhook', { caller: owner, params: { id: off.agentId } })).status).toBe(200);
    // The same stream record twice in one batch, as a retried shard may hand it over.
    const batch = [...funded.map((f) => f.record), funded[0]!.record, off.record].map((r, i) => ({
      ...r,
      dynamodb: { ...r.dynamodb, SequenceNumber: String(3000 + i) },
    }));
    expect(await relay({ Records: batch })).toEqual({ batchItemFailures: [] });
    const messages = await receiveAll();
    expect(messages.map((m) => JSON.parse(m.Body!).event_id).sort()).toEqual(funded.map((f) => f.event.id).sort());
    expect(await deliveriesOf(owner, off.agentId)).toEqual([]);

    expect(
      (await deliver({ Records: messages.map((m) => toSqsRecord(m, queues.queueArn)) })).batchItemFailures,
    ).toEqual([]);
    const after = await Promise.all(funded.map((f) => deliveriesOf(owner, f.agentId)));
    expect(after.map((list) => list.map((d: { status: string; attempts: number }) => [d.status, d.attempts]))).toEqual(
      funded.map(() => [['succeeded', 1]]),
    );

    // The stream hands the whole batch over again (a later record failed): nothing is rewritten.
    expect(await relay({ Records: batch })).toEqual({ batchItemFailures: [] });
    expect(await receiveAll()).toEqual([]);
    for (const [i, f] of funded.entries()) {
      const [record] = await deliveriesOf(owner, f.agentId);
      expect(record).toEqual(after[i]![0]);
      const detail = await invoke('getDelivery', { caller: owner, params: { id: f.agentId, delivery_id: record.id } });
      expect(detail.body.attempts).toHaveLength(1);
    }
    expect(funded.map((f) => f.receiver.deliveries.length)).toEqual([1, 1, 1]);
  });

  it('a failed record write: the rows are reported, no message is sent, and the retried batch sends it', async () => {
    const { agentId, event, record } = await fundedAgent();
    // DynamoDB Local cannot be made to refuse one BatchWriteItem of valid records, so the client
    // refuses that one command here (every other call goes to DynamoDB Local).
    const client = db();
    const send = client.send.bind(client);
    const refuse = vi
      .spyOn(client, 'send')
      .mockImplementation(((command: unknown) =>
        command instanceof BatchWriteCommand
          ? Promise.reject(new Error('write refused'))
          : send(command as never)) as never);
    try {
      expect(
        await relay({ Records: [record, { ...record, dynamodb: { ...record.dynamodb, SequenceNumber: '1001' } }] }),
      ).toEqual({
        batchItemFailures: [{ itemIdentifier: '1000' }, { itemIdentifier: '1001' }],
      });
    } finally {
      refuse.mockRestore();
    }
    expect(await receiveAll()).toEqual([]);
    expect(await deliveriesOf(owner, agentId)).toEqual([]);
    expect(await relay({ Records: [record] })).toEqual({ batchItemFailures: [] });
    expect((await receiveAll()).map((m) => JSON.parse(m.Body!).event_id)).toEqual([event.id]);
  });
});

describe('sendLater: SendMessageBatch with delays as signed JSON calls (lib/aws/json-protocol.ts), on fauxqs', () => {
  it('sends the copies delayed, hopping past 15 minutes with `not_before`; a refused call reports its copies unsent', async () => {
    // A queue of its own, so "nothing visible" holds whatever the tests above left on theirs.
    const { queueUrl } = await createDeliveryQueues(sqs.client, `${tableName()}-later`, {
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 20,
    });
    const message = { agent_id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC', delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3J' };
    const later = (seconds: number, m: typeof message & { not_before?: number } = message) => ({ message: m, seconds });
    const now = Date.now();
    expect(await sendLater([later(0)], now, queueUrl)).toEqual(new Set());
    const [due] = await receiveAll(queueUrl);
    expect(JSON.parse(due!.Body!)).toEqual(message);
    // Two seconds later: not visible at once, then visible, with no `not_before` (one delay covers it).
    await sendLater([later(2)], now, queueUrl);
    expect(await receiveAll(queueUrl)).toEqual([]);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await receiveAll(queueUrl)).map((m) => JSON.parse(m.Body!))).toEqual([message]);
    // An hour, twelve at once (two calls): delayed by SQS's longest (nothing visible now).
    expect(
      await sendLater(
        Array.from({ length: 12 }, () => later(3600, { ...message, not_before: 1 })),
        now,
        queueUrl,
      ),
    ).toEqual(new Set());
    expect(await receiveAll(queueUrl)).toEqual([]);
    const attributes = await sqs.client.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }),
    );
    expect(attributes.Attributes?.['ApproximateNumberOfMessagesDelayed']).toBe('12');
    expect(MAX_SEND_DELAY_SECONDS).toBe(900);

    expect(await sendLater([later(10), later(20)], now, `${queueUrl}-nope`)).toEqual(new Set([0, 1]));
  });

  it('a copy held without an attempt counts its hold (lib/events/delivery/hold.ts); a copy after an attempt starts afresh', async () => {
    const { queueUrl } = await createDeliveryQueues(sqs.client, `${tableName()}-held`, {
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 20,
    });
    const saved = process.env['DELIVERY_QUEUE_URL'];
    process.env['DELIVERY_QUEUE_URL'] = queueUrl;
    try {
      const message = {
        agent_id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC',
        delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3J',
        event_id: 'evt_0000000001FHNDNP00AKF8NB3J',
      };
      const unsent = await sendLaterAll(
        [{ ...message, waits: 2 }, { ...message, waits: 2 }, message, message],
        [
          { kind: 'later', seconds: 0, held: true },
          { kind: 'later', seconds: 0 },
          { kind: 'later', seconds: 0, held: true },
          { kind: 'done' },
        ],
        Date.now(),
      );
      expect(unsent).toEqual(new Set());
      const bodies = (await receiveAll(queueUrl)).map((m) => JSON.parse(m.Body!));
      expect(bodies).toHaveLength(3);
      expect(bodies).toEqual(expect.arrayContaining([{ ...message, waits: 3 }, message, { ...message, waits: 1 }]));
    } finally {
      process.env['DELIVERY_QUEUE_URL'] = saved;
    }
  });
});
