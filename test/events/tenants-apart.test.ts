import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { enqueueBacklog, sendTestEvent, sickAndHealthyTenants, startFilePipeline, waitFor } from './support.ts';

/**
 * Tenants apart (docs/events.md): one endpoint down with a backlog larger than the queue's in-flight
 * limit does not stop another's deliveries. The local SQS enforces the limit as AWS does (scaled
 * down here to 40: local/emulators/sqs-fair-queue.ts) and hands out messages as a fair queue does.
 * Before issue 40 the dead endpoint's failed and circuit-held attempts were parked in flight (30 s
 * and more): run against that design, they fill the limit, every receive past it fails with
 * OverLimit (for every tenant), and the backlog never leaves the queue: this test fails.
 */
const IN_FLIGHT_LIMIT = 40;
const BACKLOG = 3 * IN_FLIGHT_LIMIT;
process.env['SQS_IN_FLIGHT_LIMIT'] = String(IN_FLIGHT_LIMIT);
delete process.env['DELIVERY_RETRY_DELAYS_SECONDS'];

let pipeline: EventPipeline;

beforeAll(async () => {
  pipeline = await startFilePipeline({ visibilityTimeoutSeconds: 25, maxReceiveCount: 20 });
});

afterAll(async () => {
  await pipeline?.stop();
});

describe('a dead endpoint with a backlog over the in-flight limit', () => {
  it("slows no one else: the healthy endpoint's events are delivered, and in flight stays within the batches at work", async () => {
    // Two tenants: the dead endpoint's owner is another account (its operational notices are its own).
    const {
      sickOwner: deadOwner,
      sick: dead,
      sickAgent: deadAgent,
      healthyOwner,
      healthy,
      healthyAgent,
    } = await sickAndHealthyTenants();
    dead.answer = () => 503;
    await enqueueBacklog(deadOwner, deadAgent, BACKLOG);

    const sqs = new SQSClient(endpointOverride(pipeline.sqsEndpoint));
    let maxInFlight = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: pipeline.queueUrl,
            AttributeNames: ['ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        maxInFlight = Math.max(maxInFlight, Number(Attributes['ApproximateNumberOfMessagesNotVisible']));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    // The dead endpoint fails its attempts (the circuit opens) while the healthy one's events come.
    await waitFor(() => dead.deliveries.length >= 6 || undefined, 'the dead endpoint’s failed attempts');
    for (let i = 0; i < 3; i++) await sendTestEvent(healthyOwner, healthyAgent);
    const tests = () => healthy.deliveries.filter((d) => d.json.type === 'service.webhook.test').length;
    await waitFor(() => tests() === 3 || undefined, 'the healthy endpoint’s three events');
    // Every message of the backlog was received at least once, and none stays in flight.
    await waitFor(async () => {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: pipeline.queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      return (
        (Number(Attributes['ApproximateNumberOfMessages']) === 0 &&
          Number(Attributes['ApproximateNumberOfMessagesDelayed']) >= BACKLOG) ||
        undefined
      );
    }, 'the backlog waiting as delayed copies');
    sampling = false;
    await sampler;
    sqs.destroy();
    // At most the batches at work (the local event source's two pollers of 10): no message waits in flight.
    expect(maxInFlight).toBeLessThanOrEqual(20);
    expect(maxInFlight).toBeGreaterThan(0);
  }, 60_000);
});
