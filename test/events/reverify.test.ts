import { describe, expect, it } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useDeliveryQueue } from './queue-harness.ts';
import { agentItem, createAgent, enableWebhook, feedOf, startWebhookReceiver } from './support.ts';

/**
 * Periodic re-verification (docs/webhooks.md, "Re-verification"), on the delivery worker's moved
 * clock against a real receiver on 127.0.0.1: a handshake older than 72 h is challenged again after
 * a batch, deliveries go on meanwhile; failures are retried an hour apart, and the third in a row
 * sends the webhook back to PENDING_VERIFICATION with `agent.webhook.unverified`.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,60,60';
const queue = useDeliveryQueue();
const HOUR = 3600_000;
let owner: TestUser;

const getAgent = async (agentId: string) => (await invoke('getAgent', { caller: owner, params: { id: agentId } })).body;

async function deliverTestEventAt(agentId: string, nowMs: number): Promise<void> {
  const sent = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
  expect(sent.status).toBe(202);
  await queue.relay(agentId, sent.body.event_id);
  await queue.deliverVisible({ now: () => nowMs });
}

describe('re-verification every 72 hours', () => {
  it('challenges a stale handshake after a batch, moves last_verified_at, and leaves fresh ones alone', async () => {
    owner = await createTestUser();
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    const verifiedAt = Date.parse((await getAgent(agentId)).last_verified_at);
    expect(receiver.challenges).toBe(1);

    await deliverTestEventAt(agentId, verifiedAt + 71 * HOUR);
    expect(receiver.challenges).toBe(1);
    const later = verifiedAt + DELIVERY.reverifyAfterSeconds * 1000 + 1000;
    await deliverTestEventAt(agentId, later);
    expect(receiver.challenges).toBe(2);
    expect(receiver.deliveries).toHaveLength(2);
    expect(await getAgent(agentId)).toMatchObject({
      webhook_status: 'ENABLED',
      last_verified_at: new Date(later).toISOString(),
    });
  });

  it('failures: ENABLED and delivering meanwhile, retried an hour apart; the third → PENDING_VERIFICATION with agent.webhook.unverified', async () => {
    owner ??= await createTestUser();
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    const other = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    const t0 = Date.parse((await getAgent(agentId)).last_verified_at) + DELIVERY.reverifyAfterSeconds * 1000;
    receiver.echoChallenges = false;

    await deliverTestEventAt(agentId, t0);
    expect(receiver.challenges).toBe(2);
    expect(await agentItem(agentId)).toMatchObject({ webhook_status: 'ENABLED', reverify_failures: 1 });
    // Within the hour: deliveries go on, no new challenge.
    await deliverTestEventAt(agentId, t0 + HOUR - 1000);
    expect(receiver.challenges).toBe(2);
    expect(receiver.deliveries).toHaveLength(2);

    await deliverTestEventAt(agentId, t0 + HOUR);
    expect((await agentItem(agentId))['reverify_failures']).toBe(2);
    await deliverTestEventAt(agentId, t0 + 2 * HOUR);
    expect(receiver.challenges).toBe(4);
    const agent = await getAgent(agentId);
    expect(agent.webhook_status).toBe('PENDING_VERIFICATION');
    for (const id of [agentId, other]) {
      const notices = (await feedOf(owner, id)).filter((e) => e.type === 'agent.webhook.unverified');
      expect(notices.map((n) => n.data)).toEqual([
        expect.objectContaining({
          agent_id: agentId,
          failures: DELIVERY.reverifyFailuresToDemote,
          last_verified_at: agent.last_verified_at,
        }),
      ]);
    }
    // The owner verifies again: ENABLED, a fresh last_verified_at.
    receiver.echoChallenges = true;
    const verified = await invoke('verifyWebhook', { caller: owner, params: { id: agentId } });
    expect(verified.body.webhook_status).toBe('ENABLED');
    expect(Date.parse(verified.body.last_verified_at)).toBeGreaterThan(Date.parse(agent.last_verified_at));
  });
});
