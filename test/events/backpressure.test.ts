import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import { retryAfterSeconds } from '../../lib/events/delivery/retry-after.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { deliveryIdOf, useDeliveryQueue } from './queue-harness.ts';
import {
  agentItem,
  createAgent,
  enableWebhook,
  feedOf,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support.ts';

/**
 * Backpressure as the Standard Webhooks spec says (docs/webhooks.md, "Backpressure"), against a real
 * receiver on 127.0.0.1, with the delivery worker's clock moved instead of waiting: 410 disables at
 * once; 429/502/503/504 with `Retry-After` (seconds or an HTTP date, capped at 1 h) move the next
 * attempt and pause the endpoint; the per-endpoint circuit opens after repeated failures, parks
 * messages without a POST and lets one probe through when it half-opens.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,60,60,60,60,60,60,60,60,60';
const queue = useDeliveryQueue();
let owner: TestUser;

const delivery = async (agentId: string, eventId: string) =>
  (await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: deliveryIdOf(eventId) } })).body;

/** A test event, relayed: its delivery message is in the queue. */
async function testEvent(agentId: string): Promise<string> {
  const sent = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
  expect(sent.status).toBe(202);
  await queue.relay(agentId, sent.body.event_id);
  return sent.body.event_id as string;
}

async function enabledAgent(): Promise<{ agentId: string; receiver: WebhookReceiver }> {
  owner ??= await createTestUser();
  const receiver = await startWebhookReceiver();
  const agentId = await createAgent(owner);
  await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
  return { agentId, receiver };
}

describe('410 Gone', () => {
  it('disables the webhook at once, with the reason on the agent and the notice in the feed; nothing more is POSTed', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 410;
    const first = await testEvent(agentId);
    const second = await testEvent(agentId);
    await queue.deliverVisible();
    const agent = (await invoke('getAgent', { caller: owner, params: { id: agentId } })).body;
    expect(agent).toMatchObject({ webhook_status: 'DISABLED', webhook_disabled_reason: 'endpoint_gone' });
    const notices = (await feedOf(owner, agentId)).filter((e) => e.type === 'service.webhook.disabled');
    expect(notices).toHaveLength(1); // two 410s in one batch, one notice
    expect(notices[0]).toMatchObject({
      schema_version: 2,
      data: { reason: 'endpoint_gone', webhook_url: receiver.url },
    });

    const posts = receiver.deliveries.length;
    expect(posts).toBe(2);
    await queue.sendScheduledCopy(agentId, deliveryIdOf(first), first);
    await queue.deliverVisible({ now: () => Date.now() + 120_000 });
    expect(receiver.deliveries).toHaveLength(posts);
    expect(await delivery(agentId, first)).toMatchObject({
      status: 'failed',
      last_error: expect.stringContaining('not enabled'),
    });
    expect((await delivery(agentId, second)).last_status_code).toBe(410);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, caps them at one hour, and ignores the rest', () => {
    const now = Date.parse('2026-11-27T00:00:00Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 7 ', now)).toBe(7);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 00:10:00 GMT', now)).toBe(600);
    expect(retryAfterSeconds('999999', now)).toBe(3600);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 09:00:00 GMT', now)).toBe(3600);
    for (const bad of [undefined, '', '0', '-5', '1.5', 'soon', '12abc', 'Thu, 26 Nov 2026 23:00:00 GMT'])
      expect(retryAfterSeconds(bad, now), String(bad)).toBeUndefined();
  });

  it.each([502, 503, 504])(
    '%i with Retry-After: the next attempt no sooner, and the endpoint paused',
    async (status) => {
      const { agentId, receiver } = await enabledAgent();
      receiver.answer = () => status;
      receiver.headers = { 'retry-after': '1800' };
      const t0 = Date.now() + 1000;
      const eventId = await testEvent(agentId);
      await queue.deliverVisible({ now: () => t0 });
      expect(Date.parse((await delivery(agentId, eventId)).next_attempt_at)).toBe(t0 + 1800_000);
      expect((await agentItem(agentId))['circuit_open_until']).toBe(t0 + 1800_000);
    },
  );

  it('429 with Retry-After pauses every delivery of the endpoint; after it one probe goes, and a 2xx lets the rest through', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 429;
    receiver.headers = { 'retry-after': '1800' };
    const first = await testEvent(agentId);
    const t0 = Date.now() + 1000;
    await queue.deliverVisible({ now: () => t0 });
    expect(Date.parse((await delivery(agentId, first)).next_attempt_at)).toBe(t0 + 1800_000);

    // Another delivery during the pause waits without a POST, and so does the first one's copy.
    const second = await testEvent(agentId);
    await queue.sendScheduledCopy(agentId, deliveryIdOf(first), first);
    const paused = await queue.deliverVisible({ now: () => t0 + 60_000 });
    expect(paused).toMatchObject({ left: [], later: paused.received });
    expect(receiver.deliveries).toHaveLength(1);

    // After it, one probe goes through; a 2xx closes the circuit and the rest follow.
    receiver.answer = () => 200;
    receiver.headers = {};
    const after = t0 + 1800_000 + 1000;
    await queue.sendScheduledCopy(agentId, deliveryIdOf(second), second);
    await queue.deliverVisible({ now: () => after });
    expect(receiver.deliveries).toHaveLength(2);
    expect((await agentItem(agentId))['circuit_open_until']).toBeUndefined();
    await queue.sendScheduledCopy(agentId, deliveryIdOf(first), first);
    await queue.sendScheduledCopy(agentId, deliveryIdOf(second), second);
    await queue.deliverVisible({ now: () => after + 1000 });
    expect((await delivery(agentId, first)).status).toBe('succeeded');
    expect((await delivery(agentId, second)).status).toBe('succeeded');
  }, 30_000);

  it('an HTTP date and a cap: 600 s from a date, one hour from a day; a 500 with Retry-After keeps the schedule', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 503;
    const dated = await testEvent(agentId);
    // After the event was made (it is not due before), on a whole second (an HTTP date has no fraction).
    const t0 = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    receiver.headers = { 'retry-after': new Date(t0 + 600_000).toUTCString() };
    await queue.deliverVisible({ now: () => t0 });
    expect(Date.parse((await delivery(agentId, dated)).next_attempt_at)).toBe(t0 + 600_000);

    receiver.headers = { 'retry-after': '86400' };
    await queue.sendScheduledCopy(agentId, deliveryIdOf(dated), dated);
    await queue.deliverVisible({ now: () => t0 + 601_000 });
    expect(Date.parse((await delivery(agentId, dated)).next_attempt_at)).toBe(t0 + 601_000 + 3600_000);

    const { agentId: other, receiver: plain } = await enabledAgent();
    plain.answer = () => 500;
    plain.headers = { 'retry-after': '1800' };
    const eventId = await testEvent(other);
    const t1 = Date.now() + 1000;
    await queue.deliverVisible({ now: () => t1 });
    expect(Date.parse((await delivery(other, eventId)).next_attempt_at)).toBe(t1 + 60_000);
    expect((await agentItem(other))['circuit_open_until']).toBeUndefined();
  });
});

describe('the per-endpoint circuit', () => {
  it(`opens after ${DELIVERY.circuitFailuresToOpen} failures in a row, parks without POSTs, probes once when half-open, doubles its cooldown on a failed probe, closes on a success`, async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 500;
    const events: string[] = [];
    for (let i = 0; i < DELIVERY.circuitFailuresToOpen; i++) events.push(await testEvent(agentId));
    const t0 = Date.now() + 1000; // after the events were made: they are not due before
    await queue.deliverVisible({ now: () => t0 });
    expect(receiver.deliveries).toHaveLength(DELIVERY.circuitFailuresToOpen);
    const opened = await agentItem(agentId);
    expect(opened).toMatchObject({
      circuit_open_until: t0 + DELIVERY.circuitCooldownSeconds * 1000,
      circuit_openings: 1,
      circuit_failures: 0,
    });

    // Open: due messages come back later, no POST.
    const resend = () => Promise.all(events.map((e) => queue.sendScheduledCopy(agentId, deliveryIdOf(e), e)));
    await resend();
    const parked = await queue.deliverVisible({ now: () => t0 + 61_000 - DELIVERY.circuitCooldownSeconds * 1000 });
    expect(parked).toMatchObject({ left: [], later: parked.received });
    expect(receiver.deliveries).toHaveLength(DELIVERY.circuitFailuresToOpen);

    // Half-open: of five due messages one probe POSTs; it fails, so the circuit opens for twice as long.
    const t1 = t0 + 61_000;
    await queue.deliverVisible({ now: () => t1 }); // the delayed copies are invisible in real time: send new ones
    await resend();
    await queue.deliverVisible({ now: () => t1 });
    expect(receiver.deliveries).toHaveLength(DELIVERY.circuitFailuresToOpen + 1);
    expect(await agentItem(agentId)).toMatchObject({
      circuit_open_until: t1 + 2 * DELIVERY.circuitCooldownSeconds * 1000,
      circuit_openings: 2,
    });

    // Next half-open: the probe succeeds, the circuit closes, and the others are delivered.
    receiver.answer = () => 200;
    const t2 = t1 + 2 * DELIVERY.circuitCooldownSeconds * 1000 + 60_000;
    await resend();
    await queue.deliverVisible({ now: () => t2 });
    expect(receiver.deliveries).toHaveLength(DELIVERY.circuitFailuresToOpen + 2);
    const closed = await agentItem(agentId);
    for (const field of ['circuit_open_until', 'circuit_openings', 'circuit_failures'])
      expect(closed[field]).toBeUndefined();
    await resend();
    await queue.deliverVisible({ now: () => t2 + 1000 });
    const statuses = await Promise.all(events.map(async (e) => (await delivery(agentId, e)).status));
    expect(statuses).toEqual(events.map(() => 'succeeded'));
    expect((await invoke('getAgent', { caller: owner, params: { id: agentId } })).body.webhook_status).toBe('ENABLED');
  }, 60_000);

  it('once a batch has seen it open, its messages wait with nothing read for them until the circuit’s time (lib/events/delivery/held-endpoints.ts)', async () => {
    const { agentId, receiver } = await enabledAgent();
    receiver.answer = () => 500;
    const events: string[] = [];
    for (let i = 0; i < DELIVERY.circuitFailuresToOpen; i++) events.push(await testEvent(agentId));
    const t0 = Date.now() + 1000;
    await queue.deliverVisible({ now: () => t0 });
    expect((await agentItem(agentId))['circuit_open_until']).toBe(t0 + DELIVERY.circuitCooldownSeconds * 1000);
    const [gone, ...others] = events;
    for (const e of others) await queue.sendScheduledCopy(agentId, deliveryIdOf(e), e);
    expect(await queue.deliverVisible({ now: () => t0 + 1000 })).toMatchObject({
      received: others.length,
      later: others.length,
    });

    // A message whose record is gone: read, it would end (no copy); unread, it waits as the others did.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.delivery(agentId, deliveryIdOf(gone!)) }));
    await queue.sendScheduledCopy(agentId, deliveryIdOf(gone!), gone!);
    expect(await queue.deliverVisible({ now: () => t0 + 2000 })).toMatchObject({ received: 1, later: 1, left: [] });
    // Half-open, the endpoint holds no longer: the record is read, found gone, and the message ends.
    await queue.sendScheduledCopy(agentId, deliveryIdOf(gone!), gone!);
    const halfOpen = t0 + DELIVERY.circuitCooldownSeconds * 1000 + 1000;
    expect(await queue.deliverVisible({ now: () => halfOpen })).toMatchObject({ received: 1, later: 0, left: [] });
    expect(receiver.deliveries).toHaveLength(DELIVERY.circuitFailuresToOpen);
  });
});
