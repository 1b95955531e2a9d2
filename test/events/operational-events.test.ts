import { describe, expect, it } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useDeliveryQueue } from './queue-harness.ts';
import { createAgent, enableWebhook, feedOf, startWebhookReceiver, type WebhookReceiver } from './support.ts';

/**
 * Operational events (docs/webhooks.md, "Operational events"): `agent.webhook.disabled` (410,
 * 5 days of failures, manual) and `agent.webhook.failing` (the circuit's first opening) reach every
 * agent of the account in its feed, and are delivered to the account's other ENABLED webhooks
 * whatever they subscribe to; another account hears nothing. Real receivers on 127.0.0.1, the
 * worker driven by hand on fauxqs and DynamoDB Local.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,60,60';
const queue = useDeliveryQueue();

interface Account {
  owner: TestUser;
  failing: { agentId: string; receiver: WebhookReceiver };
  healthy: { agentId: string; receiver: WebhookReceiver };
  quiet: string;
}

async function account(): Promise<Account> {
  const owner = await createTestUser();
  const enabled = async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    return { agentId, receiver };
  };
  return { owner, failing: await enabled(), healthy: await enabled(), quiet: await createAgent(owner) };
}

async function testEvent(owner: TestUser, agentId: string): Promise<void> {
  const sent = await invoke('sendTestEvent', { caller: owner, params: { id: agentId } });
  expect(sent.status).toBe(202);
  await queue.relay(agentId, sent.body.event_id);
}

const operational = async (owner: TestUser, agentId: string, type: string) =>
  (await feedOf(owner, agentId)).filter((e) => e.type === type);

/** Relays the agent's copies of `type` and delivers them: what its webhook receives. */
async function deliverCopies(owner: TestUser, agentId: string, type: string): Promise<void> {
  for (const event of await operational(owner, agentId, type)) await queue.relay(agentId, event.id);
  await queue.deliverVisible();
}

describe('operational events', () => {
  it('a 410: agent.webhook.disabled in every feed of the account, delivered to the other ENABLED webhook; no other account hears', async () => {
    const acct = await account();
    const stranger = await createTestUser();
    const strangerAgent = await createAgent(stranger);
    acct.failing.receiver.answer = () => 410;
    await testEvent(acct.owner, acct.failing.agentId);
    await queue.deliverVisible();

    for (const agentId of [acct.failing.agentId, acct.healthy.agentId, acct.quiet]) {
      const [notice, ...more] = await operational(acct.owner, agentId, 'agent.webhook.disabled');
      expect(more).toEqual([]);
      expect(notice).toMatchObject({
        agent_id: agentId,
        schema_version: 1,
        data: {
          agent_id: acct.failing.agentId,
          reason: 'endpoint_gone',
          webhook_url: acct.failing.receiver.url,
          message: expect.stringContaining('410'),
        },
      });
    }
    expect(await feedOf(stranger, strangerAgent)).toEqual([]);

    // The healthy webhook subscribes to contract.funded only, and still gets it; the disabled one does not.
    await deliverCopies(acct.owner, acct.healthy.agentId, 'agent.webhook.disabled');
    await deliverCopies(acct.owner, acct.failing.agentId, 'agent.webhook.disabled');
    const received = acct.healthy.receiver.deliveries.filter((d) => d.json.type === 'agent.webhook.disabled');
    expect(received.map((d) => d.json.data['agent_id'])).toEqual([acct.failing.agentId]);
    expect(acct.failing.receiver.deliveries.map((d) => d.json.type)).toEqual(['service.webhook.test']);
  });

  it('agent.webhook.failing once per failing streak, when the circuit first opens', async () => {
    const acct = await account();
    acct.failing.receiver.answer = () => 500;
    for (let i = 0; i < DELIVERY.circuitFailuresToOpen; i++) await testEvent(acct.owner, acct.failing.agentId);
    await queue.deliverVisible();
    const [notice, ...more] = await operational(acct.owner, acct.healthy.agentId, 'agent.webhook.failing');
    expect(more).toEqual([]);
    expect(notice.data).toMatchObject({
      agent_id: acct.failing.agentId,
      failures: DELIVERY.circuitFailuresToOpen,
      webhook_url: acct.failing.receiver.url,
    });
    expect(await operational(acct.owner, acct.quiet, 'agent.webhook.failing')).toHaveLength(1);
    await deliverCopies(acct.owner, acct.healthy.agentId, 'agent.webhook.failing');
    expect(acct.healthy.receiver.deliveries.map((d) => d.json.type)).toEqual(['agent.webhook.failing']);

    // A failed probe opens the circuit again: the same streak, no second notice.
    const later = Date.now() + 10 * 60_000;
    await testEvent(acct.owner, acct.failing.agentId);
    await queue.deliverVisible({ now: () => later });
    expect(acct.failing.receiver.deliveries).toHaveLength(DELIVERY.circuitFailuresToOpen + 1);
    expect(await operational(acct.owner, acct.healthy.agentId, 'agent.webhook.failing')).toHaveLength(1);
  });

  it('DELETE …/webhook: reason manual, once (a second DELETE of a DISABLED webhook tells no one)', async () => {
    const acct = await account();
    const disable = () => invoke('disableWebhook', { caller: acct.owner, params: { id: acct.healthy.agentId } });
    expect((await disable()).body).toMatchObject({ webhook_status: 'DISABLED', webhook_disabled_reason: 'manual' });
    expect((await disable()).status).toBe(200);
    const notices = await operational(acct.owner, acct.failing.agentId, 'agent.webhook.disabled');
    expect(notices.map((n) => [n.data.agent_id, n.data.reason])).toEqual([[acct.healthy.agentId, 'manual']]);
    await deliverCopies(acct.owner, acct.failing.agentId, 'agent.webhook.disabled');
    expect(acct.failing.receiver.deliveries.map((d) => d.json.data['reason'])).toEqual(['manual']);
  });
});
