import { createHmac } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import {
  configureWebhook,
  createAgent,
  createContract,
  type Delivered,
  deliveriesOf,
  enableWebhook,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
  startFilePipeline,
  startWebhookReceiver,
  type WebhookReceiver,
  waitFor,
} from './support.ts';

/**
 * The whole outbox path on the local runtime: transition → DynamoDB Local stream → relay → fauxqs
 * → delivery → a real receiver on 127.0.0.1. A three-attempt schedule (0, 1, 1 s) runs the
 * retry path in seconds; the production schedule is checked in schedule.test.ts.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';
const ATTEMPTS = 3;
const ALL_KINDS = ['contract.funded', 'contract.released', 'contract.refunded', 'contract.verification.completed'];

let pipeline: EventPipeline;
let owner: TestUser;
let templateId: string;

beforeAll(async () => {
  pipeline = await startFilePipeline({ maxReceiveCount: ATTEMPTS + 2 });
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

afterAll(async () => {
  await pipeline?.stop();
});

/** docs/api.md ("Webhook requests"), in its own words: lowercase hex HMAC-SHA-256, keyed with the secret, of "<timestamp>.<JSON body>". */
function signatureIsValid(secret: string, delivery: Delivered): boolean {
  const timestamp = delivery.headers['x-service-timestamp'] as string;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex');
  return delivery.headers['x-service-signature'] === expected;
}

/** Standard Webhooks, checked by the reference library a receiver would use (it throws on a bad signature). */
function standardWebhookPayload(secret: string, delivery: Delivered): unknown {
  return new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
}

/** Every delivery any receiver of a test got must carry valid signatures of both schemes, not only the ones a test looks at. */
const signed: { receiver: WebhookReceiver; secret: string }[] = [];
afterEach(() => {
  for (const { receiver, secret } of signed.splice(0)) {
    for (const delivery of receiver.deliveries) {
      expect(signatureIsValid(secret, delivery), delivery.body).toBe(true);
      expect(standardWebhookPayload(secret, delivery)).toEqual(delivery.json);
      expect(delivery.headers['webhook-id']).toBe(delivery.json.id);
      expect(delivery.headers['webhook-timestamp']).toBe(delivery.headers['x-service-timestamp']);
    }
  }
});

const fund = (id: string) => invoke('fundContract', { caller: owner, params: { id } });
const release = (id: string) => invoke('releaseContract', { caller: owner, params: { id } });

async function enabledAgent(events = ALL_KINDS) {
  const receiver = await startWebhookReceiver();
  const agentId = await createAgent(owner);
  const secret = await enableWebhook(owner, agentId, receiver.url, events);
  signed.push({ receiver, secret });
  return { receiver, agentId, secret };
}

describe('webhook delivery through the local pipeline', () => {
  it('delivers a signed event with the headers of docs/api.md; the body is the feed’s event object', async () => {
    const { receiver, agentId, secret } = await enabledAgent();
    const contractId = await createContract(owner, agentId, templateId);
    expect((await fund(contractId)).status).toBe(200);

    const delivery = await waitFor(() => receiver.deliveries[0], 'the delivery');
    const [event] = await feedOf(owner, agentId);
    expect(delivery.json).toEqual(event);
    expect(delivery.json).toMatchObject({
      type: 'contract.funded',
      agent_id: agentId,
      data: { contract_id: contractId, amount_cents: 12_345 },
    });
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['x-service-event']).toBe('contract.funded');
    expect(delivery.headers['x-service-event-id']).toBe(event.id);
    const timestamp = delivery.headers['x-service-timestamp'] as string;
    expect(timestamp).toMatch(/^\d+$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect(delivery.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureIsValid(secret, delivery)).toBe(true);
    expect(signatureIsValid(`${secret}x`, delivery)).toBe(false);
    expect(delivery.headers['webhook-id']).toBe(event.id);
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(standardWebhookPayload(secret, delivery)).toEqual(event);
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => standardWebhookPayload(otherSecret, delivery)).toThrow();

    const [record] = await waitFor(async () => {
      const list = await deliveriesOf(owner, agentId);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'the delivery record');
    expect(record).toEqual({
      id: `dlv_${event.id.slice(4)}`,
      event_id: event.id,
      event_type: 'contract.funded',
      destination_id: null,
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
      created_at: expect.any(String),
      contract_id: event.data.contract_id,
      replay: false,
    });
  });

  it('receiver answers 500, then 200: delivered on a retry with the same event id, attempts 2', async () => {
    const { receiver, agentId, secret } = await enabledAgent();
    receiver.answer = () => (receiver.deliveries.length === 1 ? 500 : 200);
    await fund(await createContract(owner, agentId, templateId));

    await waitFor(() => receiver.deliveries[1], 'the retry');
    const [first, second] = receiver.deliveries as [Delivered, Delivered];
    expect(second.json.id).toBe(first.json.id);
    expect(second.headers['x-service-event-id']).toBe(first.json.id);
    expect(signatureIsValid(secret, first) && signatureIsValid(secret, second)).toBe(true);
    const [record] = await waitFor(async () => {
      const list = await deliveriesOf(owner, agentId);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'success');
    expect(record).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200, last_error: null });
    expect(receiver.deliveries).toHaveLength(2);
  });

  it('receiver down for the whole schedule: failed and visible; a manual retry delivers it once the receiver is back', async () => {
    const { receiver, agentId, secret } = await enabledAgent();
    const port = Number(new URL(receiver.url).port);
    await receiver.close();
    await fund(await createContract(owner, agentId, templateId));

    const [failed] = await waitFor(
      async () => {
        const list = await deliveriesOf(owner, agentId);
        return list[0]?.status === 'failed' ? list : undefined;
      },
      'the delivery to fail',
      20_000,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: ATTEMPTS,
      last_status_code: null,
      next_attempt_at: null,
    });
    expect(failed.last_error).toMatch(/network error/);

    const back = await startWebhookReceiver(port);
    signed.push({ receiver: back, secret });
    const retry = await invoke('retryDelivery', { caller: owner, params: { id: agentId, delivery_id: failed.id } });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: failed.id, status: 'pending' });
    const delivery = await waitFor(() => back.deliveries[0], 'the manual retry');
    expect(delivery.json.id).toBe(failed.event_id);
    expect(signatureIsValid(secret, delivery)).toBe(true);
    const [record] = await waitFor(async () => {
      const list = await deliveriesOf(owner, agentId);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'success');
    expect(record).toMatchObject({ attempts: ATTEMPTS + 1, last_status_code: 200 });
    expect(back.deliveries).toHaveLength(1);
  });

  it('a manual retry that fails again ends failed after one more attempt', async () => {
    const { receiver, agentId } = await enabledAgent();
    receiver.answer = () => 503;
    await fund(await createContract(owner, agentId, templateId));
    const [failed] = await waitFor(
      async () => {
        const list = await deliveriesOf(owner, agentId);
        return list[0]?.status === 'failed' ? list : undefined;
      },
      'failure',
      20_000,
    );
    expect(failed).toMatchObject({ attempts: ATTEMPTS, last_status_code: 503 });
    expect(
      (await invoke('retryDelivery', { caller: owner, params: { id: agentId, delivery_id: failed.id } })).status,
    ).toBe(202);
    const [again] = await waitFor(async () => {
      const list = await deliveriesOf(owner, agentId);
      return list[0]?.status === 'failed' && list[0].attempts === ATTEMPTS + 1 ? list : undefined;
    }, 'the second failure');
    expect(again.last_status_code).toBe(503);
    expect(receiver.deliveries).toHaveLength(ATTEMPTS + 1);
  });

  it('no delivery while PENDING_VERIFICATION or for kinds not subscribed; the feed has every event', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    signed.push({ receiver, secret: await configureWebhook(owner, agentId, receiver.url, ['contract.released']) });
    const early = await createContract(owner, agentId, templateId);
    await fund(early);
    await release(early); // a subscribed kind, but PENDING_VERIFICATION: never delivered, not even once verified
    expect((await invoke('verifyWebhook', { caller: owner, params: { id: agentId } })).status).toBe(200);
    const later = await createContract(owner, agentId, templateId);
    await fund(later); // ENABLED, but contract.funded is not subscribed
    await release(later);

    await waitFor(() => receiver.deliveries[0], 'the release');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.deliveries.map((d) => `${d.json.data.contract_id} ${d.json.type}`)).toEqual([
      `${later} contract.released`,
    ]);
    expect((await deliveriesOf(owner, agentId)).map((d) => d.event_type)).toEqual(['contract.released']);
    expect((await feedOf(owner, agentId)).map((e) => e.type)).toEqual([
      'contract.funded',
      'contract.released',
      'contract.funded',
      'contract.released',
    ]);
  });

  it('a copy of a message (SQS delivering twice) makes no second record and no second post', async () => {
    const { receiver, agentId } = await enabledAgent();
    await fund(await createContract(owner, agentId, templateId));
    const first = await waitFor(() => receiver.deliveries[0], 'the delivery');
    const [record] = await waitFor(async () => {
      const list = await deliveriesOf(owner, agentId);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'success');
    const sqs = new SQSClient({
      endpoint: pipeline.sqsEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const body = JSON.stringify({ agent_id: agentId, delivery_id: record.id, event_id: record.event_id });
    await sqs.send(new SendMessageCommand({ QueueUrl: pipeline.queueUrl, MessageBody: body }));
    await sqs.send(new SendMessageCommand({ QueueUrl: pipeline.queueUrl, MessageBody: body }));
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.deliveries.map((d) => d.json.id)).toEqual([first.json.id]);
    const list = await deliveriesOf(owner, agentId);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    sqs.destroy();
  });

  it('a poison message (not a delivery) ends in the DLQ', async () => {
    const sqs = new SQSClient({
      endpoint: pipeline.sqsEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: pipeline.queueUrl, MessageBody: 'this is not a delivery' }));
    const dead = await waitFor(
      async () => {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: pipeline.deadLetterQueueUrl, WaitTimeSeconds: 1 }),
        );
        return Messages[0];
      },
      'the DLQ',
      20_000,
    );
    expect(dead.Body).toBe('this is not a delivery');
    sqs.destroy();
  });
});
