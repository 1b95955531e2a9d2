import { describe, expect, it } from 'vitest';
import { createTestUser, invoke } from '../support/lambda.ts';
import { deliveryIdOf, useDeliveryQueue } from './queue-harness.ts';
import { createAgent, startWebhookReceiver } from './support.ts';

/**
 * The owner's `rate_limit` (deliveries a second) on a webhook (docs/webhooks.md, "Backpressure and
 * rate limits"), against a real receiver, with the worker's clock held inside one second and then
 * moved to the next: the excess waits its turn as delayed copies, with no attempt taken, never dropped.
 */
delete process.env['DELIVERY_RETRY_DELAYS_SECONDS'];
const queue = useDeliveryQueue();

async function limitedAgent(rateLimit: number) {
  const owner = await createTestUser();
  const receiver = await startWebhookReceiver();
  const agentId = await createAgent(owner);
  const configured = await invoke('configureWebhook', {
    caller: owner,
    params: { id: agentId },
    body: { webhook_url: receiver.url, events: ['contract.funded'], rate_limit: rateLimit },
  });
  expect(configured.status, JSON.stringify(configured.body)).toBe(200);
  expect(configured.body.rate_limit).toBe(rateLimit);
  expect((await invoke('verifyWebhook', { caller: owner, params: { id: agentId } })).status).toBe(200);
  return { owner, receiver, agentId };
}

describe('rate_limit on a webhook', () => {
  it('sends at most the limit a second; the excess waits as delayed copies, not counted as attempts, and all arrive', async () => {
    const { owner, receiver, agentId } = await limitedAgent(2);
    const events: string[] = [];
    for (let i = 0; i < 5; i++) {
      const sent = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
      expect(sent.status).toBe(202);
      events.push(sent.body.event_id as string);
      await queue.relay(agentId, sent.body.event_id);
    }
    const second = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const first = await queue.deliverVisible({ now: () => second + 100 });
    expect(first).toMatchObject({ received: 5, left: [], later: 3 });
    expect(receiver.deliveries).toHaveLength(2);
    const records = await Promise.all(
      events.map(
        async (e) =>
          (await invoke('getDelivery', { caller: owner, params: { id: agentId, delivery_id: deliveryIdOf(e) } })).body,
      ),
    );
    expect(records.filter((r) => r.status === 'succeeded')).toHaveLength(2);
    // Waiting their turn: pending, no attempt made or counted.
    expect(records.filter((r) => r.status === 'pending' && r.attempt_count === 0)).toHaveLength(3);

    // The copies come back a second later (real time); in the next second two more go, then the last.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await queue.deliverVisible({ now: () => second + 1100 })).toMatchObject({ received: 3, later: 1 });
    expect(receiver.deliveries).toHaveLength(4);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await queue.deliverVisible({ now: () => second + 2100 })).toMatchObject({ received: 1, later: 0 });
    expect(receiver.deliveries).toHaveLength(5);
    expect(new Set(receiver.deliveries.map((d) => d.json.id)).size).toBe(5);
  });

  it('is shown on the agent, removed with null, and refused outside 1 to 1000 whole deliveries a second', async () => {
    const { owner, receiver, agentId } = await limitedAgent(50);
    expect((await invoke('getAgent', { caller: owner, params: { id: agentId } })).body.rate_limit).toBe(50);
    const patch = (rate_limit: unknown) =>
      invoke('configureWebhook', {
        caller: owner,
        params: { id: agentId },
        body: { webhook_url: receiver.url, events: ['contract.funded'], rate_limit },
      });
    for (const bad of [0, 1001, 1.5, '10']) {
      const res = await patch(bad);
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    const kept = await invoke('configureWebhook', {
      caller: owner,
      params: { id: agentId },
      body: { webhook_url: receiver.url, events: ['contract.funded'] },
    });
    expect(kept.body.rate_limit).toBe(50);
    expect((await patch(null)).body.rate_limit).toBeNull();
  });
});
