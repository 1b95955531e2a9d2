import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY } from '../../lib/core/settings.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { enqueueBacklog, sendTestEvent, sickAndHealthyTenants, startFilePipeline, waitFor } from './support.ts';

/**
 * The cap on POSTs in flight per endpoint (lib/events/delivery/endpoint-slots.ts; docs/events.md,
 * "Tenants apart"), with four workers at once: a slow receiver with a backlog never has more than
 * DELIVERY.endpointInFlight POSTs open (counted at the receiver), its backlog still all arrives, and
 * a healthy receiver's events arrive while the slow one's backlog is still being worked through.
 * Without the cap the four workers' batches open up to 40 POSTs at once on the slow receiver.
 */
const BACKLOG = 16;
const SLOW_MS = 1_000;
delete process.env['DELIVERY_RETRY_DELAYS_SECONDS'];

let pipeline: EventPipeline;

beforeAll(async () => {
  pipeline = await startFilePipeline({ visibilityTimeoutSeconds: 25, maxReceiveCount: 20, concurrency: 4 });
});

afterAll(async () => {
  await pipeline?.stop();
});

describe('a slow endpoint with a backlog', () => {
  it('gets at most DELIVERY.endpointInFlight POSTs at once, all of its backlog, and holds no one else up', async () => {
    const {
      sickOwner: slowOwner,
      sick: slow,
      sickAgent: slowAgent,
      healthyOwner,
      healthy,
      healthyAgent,
    } = await sickAndHealthyTenants();
    let open = 0;
    let mostOpen = 0;
    slow.answer = async () => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      await new Promise((r) => setTimeout(r, SLOW_MS));
      open -= 1;
      return 200;
    };
    await enqueueBacklog(slowOwner, slowAgent, BACKLOG);

    await waitFor(() => slow.deliveries.length >= 2 || undefined, 'the slow endpoint’s backlog under way');
    for (let i = 0; i < 3; i++) await sendTestEvent(healthyOwner, healthyAgent);
    const tests = () => healthy.deliveries.filter((d) => d.json.type === 'service.webhook.test').length;
    await waitFor(() => tests() === 3 || undefined, 'the healthy endpoint’s three events');
    // Not held behind the slow one: its backlog is still being worked through.
    expect(slow.deliveries.length).toBeLessThan(1 + BACKLOG);

    await waitFor(() => slow.deliveries.length >= 1 + BACKLOG || undefined, 'the whole slow backlog', 45_000);
    expect(new Set(slow.deliveries.map((d) => d.json.id)).size).toBe(1 + BACKLOG);
    expect(mostOpen).toBeGreaterThan(0);
    expect(mostOpen).toBeLessThanOrEqual(DELIVERY.endpointInFlight);
  }, 90_000);
});
