import { createHmac } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { deliverBatch } from '../../lib/events/delivery/deliver-batch.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { deliveryIdOf, useDeliveryQueue } from './queue-harness.ts';
import {
  agentItem,
  configureWebhook,
  createAgent,
  createContract,
  enableWebhook,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support.ts';

/**
 * Attempt history, `?status=`, manual retry semantics, the test event and auto-disable (docs/webhooks.md),
 * with the relay and the delivery worker driven by hand on real fauxqs queues and DynamoDB Local,
 * against real receivers. The schedule has 3 attempts an hour apart, so a scheduled message stays
 * parked while a test looks; the delivery worker's clock is injected to reach "when due" and
 * "5 days later" without waiting.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,3600,3600';
const DAY = 24 * 3600 * 1000;

const { relay, deliverVisible, sendScheduledCopy, receiveVisible, recordOf, delayed } = useDeliveryQueue();
let owner: TestUser;
let templateId: string;

beforeAll(async () => {
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

/** A funded contract's event, relayed: its delivery message is in the queue. */
async function fundedEvent(agentId: string): Promise<{ eventId: string; contractId: string }> {
  const contractId = await createContract(owner, agentId, templateId);
  expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
  const event = (await feedOf(owner, agentId)).at(-1)!;
  await relay(agentId, event.id);
  return { eventId: event.id, contractId };
}

const getDelivery = (agentId: string, deliveryId: string, caller = owner) =>
  invoke('getDelivery', { caller, params: { id: agentId, delivery_id: deliveryId } });
const retry = (agentId: string, deliveryId: string, body?: unknown) =>
  invoke('retryDelivery', {
    caller: owner,
    params: { id: agentId, delivery_id: deliveryId },
    ...(body === undefined ? {} : { body }),
  });
const list = async (agentId: string, query: Record<string, string>) =>
  invoke('listDeliveries', { caller: owner, params: { id: agentId }, query });

async function enabledAgent(
  events = ['contract.funded'],
): Promise<{ agentId: string; receiver: WebhookReceiver; secret: string }> {
  const receiver = await startWebhookReceiver();
  const agentId = await createAgent(owner);
  const secret = await enableWebhook(owner, agentId, receiver.url, events);
  return { agentId, receiver, secret };
}

describe('attempt history and manual retries', () => {
  it('records every attempt; a manual retry of a pending delivery neither uses up nor moves the scheduled attempts', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 500;
    const { eventId } = await fundedEvent(agentId);
    const deliveryId = deliveryIdOf(eventId);

    const first = await deliverVisible();
    // Done with, and its next attempt sent as a copy delayed for the hour: nothing waits in flight.
    expect(first).toMatchObject({ left: [], later: 1 });
    const afterFirst = await getDelivery(agentId, deliveryId);
    expect(afterFirst.status).toBe(200);
    expect(afterFirst.body).toMatchObject({
      id: deliveryId,
      event_id: eventId,
      status: 'pending',
      attempt_count: 1,
      last_status_code: 500,
    });
    expect(afterFirst.body.attempts).toEqual([
      {
        attempt: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        status_code: 500,
        error: 'http_status',
        response_body: '{"received":false}',
      },
    ]);
    const due = afterFirst.body.next_attempt_at as string;
    expect(Date.parse(due) - Date.now()).toBeGreaterThan(3500_000);

    const retried = await retry(agentId, deliveryId);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: deliveryId, status: 'pending', attempts: 1 });
    const manual = await deliverVisible();
    expect(manual).toEqual({ received: 1, left: [], later: 0 }); // the manual message only, done after its one attempt
    expect(receiver.deliveries).toHaveLength(2);
    const afterManual = (await getDelivery(agentId, deliveryId)).body;
    expect(afterManual).toMatchObject({ status: 'pending', attempt_count: 2, next_attempt_at: due });

    // A copy of the scheduled message that shows up early waits for the due time, without a POST.
    await sendScheduledCopy(agentId, deliveryId, eventId);
    expect(await deliverVisible()).toMatchObject({ left: [], later: 1 });
    expect(receiver.deliveries).toHaveLength(2);

    // When due: the schedule's second attempt. Still pending, because the manual one did not count.
    await sendScheduledCopy(agentId, deliveryId, eventId);
    expect(await deliverVisible({ now: () => Date.parse(due) + 1000 })).toMatchObject({ left: [], later: 1 });
    const second = (await getDelivery(agentId, deliveryId)).body;
    expect(second).toMatchObject({ status: 'pending', attempt_count: 3 });
    expect(Date.parse(second.next_attempt_at)).toBeGreaterThan(Date.parse(due));

    // The third scheduled attempt is the last: failed after 3 scheduled + 1 manual.
    await sendScheduledCopy(agentId, deliveryId, eventId);
    expect(await deliverVisible({ now: () => Date.parse(second.next_attempt_at) + 1000 })).toMatchObject({
      left: [],
      later: 0,
    });
    const failed = (await getDelivery(agentId, deliveryId)).body;
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 4, next_attempt_at: null });
    expect(failed.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(receiver.deliveries).toHaveLength(4);
  });

  it('one message received twice at once: one POST (the slot is taken before it); the other receipt keeps the message until the attempt is recorded', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = async () => {
      await new Promise((r) => setTimeout(r, 300));
      return 500;
    };
    const { eventId } = await fundedEvent(agentId);
    const [message] = await receiveVisible();
    const record = recordOf(message!);
    const delayedBefore = await delayed();
    const responses = await Promise.all([deliverBatch([record]), deliverBatch([record])]);
    // The receipt that lost the scheduled slot made no POST.
    expect(receiver.deliveries).toHaveLength(1);
    // The one that made it sent the next attempt as a delayed copy and is done. The other either lost
    // the take to it (then it keeps the message, a batch item failure, in case its twin's worker dies
    // before recording the attempt) or read the record with the attempt already in flight (then it
    // sends itself on to when that attempt's time is up, another delayed copy): never neither.
    const kept = responses.flat();
    expect(kept.every((id) => id === record.messageId)).toBe(true);
    expect(kept.length + ((await delayed()) - delayedBefore - 1)).toBe(1);
    const detail = (await getDelivery(agentId, deliveryIdOf(eventId))).body;
    expect(detail).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(detail.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1]);
    expect(Date.parse(detail.next_attempt_at) - Date.now()).toBeGreaterThan(3500_000);
  });

  it('a succeeded delivery: retry is 409 unless {"force": true}, which sends it once more', async () => {
    const { agentId, receiver } = await enabledAgent();
    const { eventId } = await fundedEvent(agentId);
    const deliveryId = deliveryIdOf(eventId);
    await deliverVisible();
    expect((await getDelivery(agentId, deliveryId)).body).toMatchObject({ status: 'succeeded', attempt_count: 1 });

    const refused = await retry(agentId, deliveryId);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_transition');
    expect((await retry(agentId, deliveryId, { force: false })).status).toBe(409);
    expect((await retry(agentId, deliveryId, { force: 'yes' })).status).toBe(400);
    expect((await retry(agentId, deliveryId, { forced: true })).status).toBe(400);
    expect(await receiveVisible()).toEqual([]);

    const forced = await retry(agentId, deliveryId, { force: true });
    expect(forced.status).toBe(202);
    expect(forced.body).toMatchObject({ status: 'succeeded' });
    expect(await deliverVisible()).toEqual({ received: 1, left: [], later: 0 });
    expect(receiver.deliveries.map((d) => d.json.id)).toEqual([eventId, eventId]);
    expect((await getDelivery(agentId, deliveryId)).body).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('a failed delivery goes back to pending for its one extra attempt', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 500;
    const { eventId } = await fundedEvent(agentId);
    const deliveryId = deliveryIdOf(eventId);
    let due = Date.now();
    for (let i = 0; i < 3; i++) {
      if (i > 0) await sendScheduledCopy(agentId, deliveryId, eventId);
      await deliverVisible({ now: () => due + 1000 });
      due = Date.parse((await getDelivery(agentId, deliveryId)).body.next_attempt_at ?? new Date(due).toISOString());
    }
    expect((await getDelivery(agentId, deliveryId)).body).toMatchObject({ status: 'failed', attempt_count: 3 });
    receiver.answer = () => 200;
    expect((await retry(agentId, deliveryId)).body).toMatchObject({ status: 'pending', attempts: 3 });
    await deliverVisible();
    expect((await getDelivery(agentId, deliveryId)).body).toMatchObject({
      status: 'succeeded',
      attempt_count: 4,
      last_status_code: 200,
    });
  });

  it('GET of a delivery: 404 for another account, an unknown id or a malformed one', async () => {
    const { agentId } = await enabledAgent();
    const { eventId } = await fundedEvent(agentId);
    await deliverVisible();
    const stranger = await createTestUser();
    expect((await getDelivery(agentId, deliveryIdOf(eventId), stranger)).status).toBe(404);
    expect((await getDelivery(agentId, `dlv_${'0'.repeat(26)}`)).status).toBe(404);
    expect((await getDelivery(agentId, 'evt_nope')).status).toBe(404);
  });
});

describe('GET …/deliveries?status=', () => {
  it('filters by status, newest first, with cursor paging; other values are 400', async () => {
    const { agentId, receiver } = await enabledAgent();
    const fails = new Set<string>();
    receiver.answer = (d) => (fails.has(d.json.data['contract_id'] as string) ? 500 : 200);
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const contractId = await createContract(owner, agentId, templateId);
      if (i % 2 === 1) fails.add(contractId);
      await invoke('fundContract', { caller: owner, params: { id: contractId } });
      const event = (await feedOf(owner, agentId)).at(-1)!;
      await relay(agentId, event.id);
      made.push(deliveryIdOf(event.id));
    }
    await deliverVisible();
    const [d1, d2, d3, d4] = made as [string, string, string, string];
    const ids = async (query: Record<string, string>) => {
      const res = await list(agentId, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { ids: res.body.data.map((d: { id: string }) => d.id), next: res.body.next_cursor as string | null };
    };
    expect((await ids({ status: 'succeeded' })).ids).toEqual([d3, d1]);
    expect((await ids({ status: 'pending' })).ids).toEqual([d4, d2]);
    expect((await ids({ status: 'failed' })).ids).toEqual([]);
    const page1 = await ids({ status: 'succeeded', limit: '1' });
    expect(page1).toEqual({ ids: [d3], next: d3 });
    expect(await ids({ status: 'succeeded', limit: '1', cursor: page1.next! })).toEqual({ ids: [d1], next: null });

    // d2's next scheduled attempt finds the webhook disabled: failed without an attempt.
    expect((await invoke('disableWebhook', { caller: owner, params: { id: agentId } })).status).toBe(200);
    await sendScheduledCopy(agentId, d2, `evt_${d2.slice(4)}`);
    await deliverVisible({ now: () => Date.now() + 2 * 3600_000 });
    expect((await ids({ status: 'failed' })).ids).toEqual([d2]);
    expect((await ids({ status: 'pending' })).ids).toEqual([d4]);
    expect((await ids({})).ids).toEqual([d4, d3, d2, d1]);

    for (const status of ['PENDING', 'delivered', '', 'pending,failed']) {
      const res = await list(agentId, { status });
      expect(res.status, status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});

describe('the DeliveriesByStatus index holds failures only', () => {
  const indexEntry = async (agentId: string, deliveryId: string) => {
    const { Item } = await db().send(
      new GetCommand({ TableName: tableName(), Key: keys.delivery(agentId, deliveryId), ConsistentRead: true }),
    );
    expect(Item, deliveryId).toBeDefined();
    return Item!['dlvStatus'] as string | undefined;
  };

  it('writes no entry for a first-time success, places one at a failed attempt and removes it at the success after', async () => {
    const { agentId, receiver } = await enabledAgent();
    const { eventId: okEvent } = await fundedEvent(agentId);
    const ok = deliveryIdOf(okEvent);
    // Relayed, not yet attempted: pending, and not in the index (the newest-first list shows it).
    expect(await indexEntry(agentId, ok)).toBeUndefined();
    await deliverVisible();
    expect(await indexEntry(agentId, ok)).toBeUndefined();

    receiver.answer = () => 500;
    const { eventId: retriedEvent } = await fundedEvent(agentId);
    const retried = deliveryIdOf(retriedEvent);
    await deliverVisible();
    expect(await indexEntry(agentId, retried)).toBe(`AGENT#${agentId}#pending`);
    expect((await list(agentId, { status: 'pending' })).body.data.map((d: { id: string }) => d.id)).toEqual([retried]);

    receiver.answer = () => 200;
    await sendScheduledCopy(agentId, retried, retriedEvent);
    await deliverVisible({ now: () => Date.now() + 2 * 3600_000 });
    expect((await getDelivery(agentId, retried)).body).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    expect(await indexEntry(agentId, retried)).toBeUndefined();
    expect((await list(agentId, { status: 'pending' })).body.data).toEqual([]);
    expect((await list(agentId, { status: 'succeeded' })).body.data.map((d: { id: string }) => d.id)).toEqual([
      retried,
      ok,
    ]);
  });

  it('pages ?status=succeeded through a list of other statuses, ending a page short with a cursor when it must', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 500;
    const failing: string[] = [];
    const { eventId: first } = await fundedEvent(agentId);
    receiver.answer = () => 200;
    await deliverVisible();
    receiver.answer = () => 500;
    for (let i = 0; i < 12; i++) failing.push(deliveryIdOf((await fundedEvent(agentId)).eventId));
    await deliverVisible();
    const succeeded = deliveryIdOf(first);
    // 12 pending records newer than the one success: a page of 1 reads 3 a time, 4 reads at most.
    const page = await list(agentId, { status: 'succeeded', limit: '1' });
    expect(page.body.data).toEqual([]);
    expect(page.body.next_cursor).toBe(failing[3]);
    const rest = await list(agentId, { status: 'succeeded', limit: '1', cursor: page.body.next_cursor });
    expect(rest.body.data.map((d: { id: string }) => d.id)).toEqual([succeeded]);
    expect(rest.body.next_cursor).toBeNull();
  });
});

describe('POST …/webhook/test', () => {
  it('202 {event_id}: a signed service.webhook.test event with data {}, whatever the subscription; in the feed and the deliveries', async () => {
    const { agentId, receiver, secret } = await enabledAgent(['contract.released']);
    const res = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ event_id: expect.stringMatching(/^evt_/) });
    const eventId = res.body.event_id as string;
    const feed = await feedOf(owner, agentId);
    expect(feed).toEqual([
      {
        id: eventId,
        type: 'service.webhook.test',
        created_at: expect.any(String),
        agent_id: agentId,
        schema_version: 1,
        data: {},
      },
    ]);

    await relay(agentId, eventId);
    await deliverVisible();
    const [delivered] = receiver.deliveries;
    expect(delivered!.json).toEqual(feed[0]);
    expect(delivered!.headers['x-service-event']).toBe('service.webhook.test');
    expect(delivered!.headers['webhook-id']).toBe(eventId);
    const expected = createHmac('sha256', secret)
      .update(`${delivered!.headers['x-service-timestamp']}.${delivered!.body}`)
      .digest('hex');
    expect(delivered!.headers['x-service-signature']).toBe(expected);
    expect((await getDelivery(agentId, deliveryIdOf(eventId))).body).toMatchObject({
      event_type: 'service.webhook.test',
      status: 'succeeded',
      attempt_count: 1,
    });
  });

  it('409 without an ENABLED webhook, 404 for another account', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    const disabled = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('webhook_not_configured');
    await configureWebhook(owner, agentId, receiver.url, ['contract.funded']);
    expect((await invoke('sendTestEvent', { caller: owner, params: { id: agentId } })).status).toBe(409);
    expect(await feedOf(owner, agentId)).toEqual([]);
    expect((await invoke('sendTestEvent', { caller: await createTestUser(), params: { id: agentId } })).status).toBe(
      404,
    );
  });
});

describe('auto-disable after 5 days of failures only', () => {
  it('DISABLED with a service.webhook.disabled event in the feed; nothing more attempted', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 503;
    const first = await fundedEvent(agentId);
    // After the event is made: its delivery is not due before (a loaded machine takes seconds to make it).
    const t0 = Date.now() + 1000;
    await deliverVisible({ now: () => t0 });
    expect((await agentItem(agentId))['failing_since']).toBe(t0);

    await fundedEvent(agentId);
    await deliverVisible({ now: () => t0 + 5 * DAY - 1000 });
    expect((await agentItem(agentId))['webhook_status']).toBe('ENABLED');
    expect((await agentItem(agentId))['failing_since']).toBe(t0);

    await fundedEvent(agentId);
    await deliverVisible({ now: () => t0 + 5 * DAY });
    const agent = await invoke('getAgent', { caller: owner, params: { id: agentId } });
    expect(agent.body.webhook_status).toBe('DISABLED');
    const [disabledEvent, announced] = (await feedOf(owner, agentId)).slice(-2);
    // The operational event to every agent of the account follows it (test/events/operational-events.test.ts).
    expect(announced).toMatchObject({
      type: 'agent.webhook.disabled',
      data: { agent_id: agentId, reason: 'consecutive_failures' },
    });
    expect(disabledEvent).toMatchObject({
      type: 'service.webhook.disabled',
      agent_id: agentId,
      data: {
        reason: 'consecutive_failures',
        failing_since: new Date(t0).toISOString(),
        webhook_url: receiver.url,
        message: expect.stringContaining('verify'),
      },
    });

    // The parked retry of the first event comes due: no POST, the delivery ends failed.
    const posts = receiver.deliveries.length;
    await sendScheduledCopy(agentId, deliveryIdOf(first.eventId), first.eventId);
    await deliverVisible({ now: () => t0 + 6 * DAY });
    expect(receiver.deliveries).toHaveLength(posts);
    expect((await getDelivery(agentId, deliveryIdOf(first.eventId))).body).toMatchObject({
      status: 'failed',
      last_error: expect.stringContaining('not enabled'),
    });
    expect((await invoke('sendTestEvent', { caller: owner, params: { id: agentId } })).status).toBe(409);
  });

  it('a success starts the clock again, and so does a new configuration', async () => {
    const { agentId, receiver } = await enabledAgent();
    let status = 500;
    receiver.answer = () => status;
    await fundedEvent(agentId);
    const t0 = Date.now() + 1000; // after the event is made, as above
    await deliverVisible({ now: () => t0 });
    status = 200;
    await fundedEvent(agentId);
    await deliverVisible({ now: () => t0 + DAY });
    expect((await agentItem(agentId))['failing_since']).toBeUndefined();
    status = 500;
    await fundedEvent(agentId);
    await deliverVisible({ now: () => t0 + 6 * DAY });
    expect(await agentItem(agentId)).toMatchObject({ webhook_status: 'ENABLED', failing_since: t0 + 6 * DAY });

    // Reconfigured and verified: the failures measured under the old configuration no longer count.
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    await fundedEvent(agentId);
    await deliverVisible({ now: () => t0 + 12 * DAY });
    expect(await agentItem(agentId)).toMatchObject({ webhook_status: 'ENABLED', failing_since: t0 + 12 * DAY });
  });
});
