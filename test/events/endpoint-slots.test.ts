import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { invoke, type TestUser } from '../support/lambda.ts';
import {
  agentItem,
  type Delivered,
  enqueueBacklog,
  sendTestEvent,
  sickAndHealthyTenants,
  startFilePipeline,
  waitFor,
} from './support.ts';

/**
 * The cap on POSTs in flight per endpoint in doubt (lib/events/delivery/endpoint-slots.ts;
 * docs/events.md, "Tenants apart"), with four workers at once, counted at the receiver:
 * - a webhook in doubt (a delivery left unanswered DELIVERY.slowPostMs) never has more than
 *   DELIVERY.endpointInFlight POSTs open, gets all of its backlog, and holds no one else up;
 * - a proven endpoint (its handshake or its attempts answered in time) is not capped, and keeps no lease;
 * - a proven endpoint that turns slow is in doubt once a POST has been open slowPostMs, and the
 *   batches after that are capped.
 * Without the cap the four workers' batches open up to 40 POSTs at once on a slow receiver.
 */
const SLOW_MS = DELIVERY.slowPostMs + 500;
delete process.env['DELIVERY_RETRY_DELAYS_SECONDS'];

let pipeline: EventPipeline;

beforeAll(async () => {
  pipeline = await startFilePipeline({ visibilityTimeoutSeconds: 25, maxReceiveCount: 20, concurrency: 4 });
});

afterAll(async () => {
  await pipeline?.stop();
});

/** An answer after `ms`, counting the requests open at once: `most` over all, or over those `counted` picks. */
function openCounter(ms: number, counted: (d: Delivered) => boolean = () => true) {
  const counter = { open: 0, most: 0, answer: async (_: Delivered) => 200 };
  counter.answer = async (delivery: Delivered) => {
    const mine = counted(delivery);
    if (mine) counter.most = Math.max(counter.most, ++counter.open);
    await new Promise((r) => setTimeout(r, ms));
    if (mine) counter.open -= 1;
    return 200;
  };
  return counter;
}

/** What the agent's answer says of the cap (webhook_circuit.max_requests_at_once). */
const requestsAtOnce = async (owner: TestUser, agentId: string) =>
  (await invoke('getAgent', { caller: owner, params: { id: agentId } })).body.webhook_circuit.max_requests_at_once;

const slotsOf = (item: Record<string, unknown>) => Object.keys(item).filter((k) => k.startsWith('post_slot_'));

describe('POSTs in flight per endpoint', () => {
  it('a webhook in doubt (a delivery not answered in time): at most DELIVERY.endpointInFlight at once, all of its backlog, no one else held up', async () => {
    const BACKLOG = 5;
    // Its first delivery (the test event) went while the handshake had proven it: the backlog's are counted.
    let first: string | undefined;
    const slow = openCounter(SLOW_MS, (d) => {
      first ??= d.json.id;
      return first !== d.json.id;
    });
    const { sickOwner, sick, sickAgent, healthyOwner, healthy, healthyAgent } = await sickAndHealthyTenants(
      slow.answer,
    );
    // Proven by its handshake, in doubt once its test event has been open slowPostMs.
    await waitFor(
      async () => (await agentItem(sickAgent))['post_proven_until'] === undefined || undefined,
      'the slow endpoint put in doubt by its test event',
    );
    expect(await requestsAtOnce(sickOwner, sickAgent)).toBe(DELIVERY.endpointInFlight);
    await enqueueBacklog(sickOwner, sickAgent, BACKLOG);

    await waitFor(() => sick.deliveries.length >= 2 || undefined, 'the slow endpoint’s backlog under way');
    for (let i = 0; i < 3; i++) await sendTestEvent(healthyOwner, healthyAgent);
    const tests = () => healthy.deliveries.filter((d) => d.json.type === 'service.webhook.test').length;
    await waitFor(() => tests() === 3 || undefined, 'the healthy endpoint’s three events');
    // Not held behind the slow one: its backlog is still being worked through.
    expect(sick.deliveries.length).toBeLessThan(1 + BACKLOG);

    await waitFor(() => sick.deliveries.length >= 1 + BACKLOG || undefined, 'the whole slow backlog', 60_000);
    expect(new Set(sick.deliveries.map((d) => d.json.id)).size).toBe(1 + BACKLOG);
    expect(slow.most).toBeGreaterThan(0);
    expect(slow.most).toBeLessThanOrEqual(DELIVERY.endpointInFlight);
    // The healthy endpoint answered its handshake and deliveries in time: proven, so not capped.
    expect((await agentItem(healthyAgent))['post_proven_until']).toBeGreaterThan(Date.now());
    expect(await requestsAtOnce(healthyOwner, healthyAgent)).toBeNull();
  }, 90_000);

  it('a proven endpoint is not capped and keeps no lease; turned slow, it is in doubt and capped from then on', async () => {
    const { sickOwner, sick, sickAgent } = await sickAndHealthyTenants();
    // Proven by the batch once its attempt is recorded, a moment after the receiver has it.
    const proven = await waitFor(async () => {
      const item = await agentItem(sickAgent);
      return item['post_proven_until'] > Date.now() ? item : undefined;
    }, 'the endpoint proven');
    expect(proven['post_proven_config']).toBe(proven['config_version']);

    // Fast answers (well within slowPostMs), twenty at once: more than the cap open together.
    const fast = openCounter(300);
    sick.answer = fast.answer;
    await enqueueBacklog(sickOwner, sickAgent, 20);
    await waitFor(() => sick.deliveries.length >= 21 || undefined, 'the fast backlog');
    expect(fast.most).toBeGreaterThan(DELIVERY.endpointInFlight);
    expect(slotsOf(await agentItem(sickAgent))).toEqual([]);

    // Now slow: the first wave goes uncapped (the endpoint was proven when its batches began), and
    // a POST open slowPostMs puts it in doubt; the backlog enqueued after that is capped.
    const firstWave = new Set<string>();
    const later = openCounter(SLOW_MS, (d) => !firstWave.has(d.json.id));
    sick.answer = async (d) => {
      if (sick.deliveries.length <= 25) firstWave.add(d.json.id);
      return later.answer(d);
    };
    await enqueueBacklog(sickOwner, sickAgent, 4);
    await waitFor(
      async () => (await agentItem(sickAgent))['post_proven_until'] === undefined || undefined,
      'the slow endpoint put in doubt',
    );
    await enqueueBacklog(sickOwner, sickAgent, 4);
    await waitFor(() => sick.deliveries.length >= 29 || undefined, 'the slow backlog', 60_000);
    expect(firstWave.size).toBe(4);
    expect(later.most).toBeGreaterThan(0);
    expect(later.most).toBeLessThanOrEqual(DELIVERY.endpointInFlight);
  }, 90_000);
});
