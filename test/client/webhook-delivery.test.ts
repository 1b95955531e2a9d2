import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../examples/webhook-receiver/receiver.ts';
import { type EventPipeline, startEventPipeline } from '../../local/emulators/event-pipeline.ts';
import { useLocalApi } from '../support/local-api.ts';
import { clientForNewUser } from './support/local-client.ts';
import { startReceiver } from './support/receiver-harness.ts';
import { templateInput } from './support/template-input.ts';

/**
 * The whole path an agent author sees, on the local runtime: the client configures and verifies
 * the sample receiver, contract transitions go through the outbox pipeline (stream → relay →
 * fauxqs → delivery) to it, and a delivery the receiver refused is retried by hand.
 */
process.env['DEVELOPMENT_MODE'] = 'true';
// Three attempts 0 s, 1 s, 1 s apart, so a refused delivery fails within seconds.
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';

const api = useLocalApi();
let pipeline: EventPipeline;

beforeAll(async () => {
  // The queue as deployed (visibility timeout above the delivery lease): a shorter one lets a slow
  // attempt's message come back while its lease is held, and a few such returns park it in the DLQ.
  pipeline = await startEventPipeline({
    tableName: process.env['TABLE_NAME']!,
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
  });
});
afterAll(async () => {
  await pipeline?.stop();
});

describe('end to end: client, delivery pipeline and the sample receiver', () => {
  it('delivers signed events to the verified receiver, and a hand retry after the receiver learned the rotated secret', async () => {
    const { client } = await clientForNewUser(api.url);
    const received: WebhookEvent[] = [];
    let secret = 'whsec_not_known_yet';
    const receiverUrl = await startReceiver({ secret: () => secret, onEvent: (event) => void received.push(event) });

    const agent = await client.agents.create({ name: 'delivery bot' });
    const configured = await client.agents.configureWebhook(agent.id, {
      webhook_url: receiverUrl,
      events: ['contract.funded', 'contract.released'],
    });
    secret = configured.webhook_secret!;
    expect((await client.agents.verifyWebhook(agent.id)).webhook_status).toBe('ENABLED');

    const template = await client.templates.publish(templateInput());
    const contract = await client.templates.instantiate(template.id, {
      variables: { url: 'https://shop.example.com' },
      amount_cents: 4_200,
      agent_id: agent.id,
    });
    await client.contracts.fund(contract.id);

    await expect.poll(() => received.map((e) => e.type), { timeout: 20_000 }).toEqual(['contract.funded']);
    const [funded] = (await client.events.list(agent.id)).data;
    expect(received[0]).toEqual(funded);
    expect(received[0]!.data).toMatchObject({ contract_id: contract.id, amount_cents: 4_200 });
    await expect
      .poll(
        async () =>
          (await client.deliveries.list(agent.id)).data.map((d) => [d.event_id, d.status, d.last_status_code]),
        { timeout: 10_000 },
      )
      .toEqual([[funded!.id, 'succeeded', 200]]);

    // A rotation without overlap: the receiver still holds the old secret, so it answers 401 until the service gives up.
    await client.agents.rotateWebhookSecret(agent.id, { expire_previous_in_seconds: 0 });
    await client.contracts.release(contract.id);
    const failed = async () =>
      (await client.deliveries.list(agent.id)).data.find((d) => d.event_type === 'contract.released');
    await expect.poll(async () => (await failed())?.status, { timeout: 30_000 }).toBe('failed');
    expect(await failed()).toMatchObject({ last_status_code: 401, attempts: 3 });
    expect(received.map((e) => e.type)).toEqual(['contract.funded']);

    secret = (await client.agents.getWebhookSecret(agent.id)).webhook_secret;
    const retried = await client.deliveries.retry(agent.id, (await failed())!.id);
    expect(retried).toMatchObject({ event_type: 'contract.released', status: 'pending' });
    await expect
      .poll(() => received.map((e) => e.type), { timeout: 20_000 })
      .toEqual(['contract.funded', 'contract.released']);
    await expect.poll(async () => (await failed())?.status, { timeout: 10_000 }).toBe('succeeded');

    // The history shows the three refusals and the hand retry; a succeeded delivery needs `force`.
    const released = (await client.deliveries.list(agent.id, { status: 'succeeded' })).data.find(
      (d) => d.event_type === 'contract.released',
    )!;
    const detail = await client.deliveries.get(agent.id, released.id);
    expect(detail.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 401, 'http_status'],
      [2, 401, 'http_status'],
      [3, 401, 'http_status'],
      [4, 200, null],
    ]);
    await expect(client.deliveries.retry(agent.id, released.id)).rejects.toMatchObject({
      status: 409,
      code: 'invalid_transition',
    });
    expect(await client.deliveries.retry(agent.id, released.id, { force: true })).toMatchObject({
      status: 'succeeded',
    });
    // Sent again (the sample receiver acknowledges it as a duplicate of an event it has handled).
    await expect
      .poll(async () => (await client.deliveries.get(agent.id, released.id)).attempt_count, { timeout: 20_000 })
      .toBe(5);
    expect(received.filter((e) => e.type === 'contract.released')).toHaveLength(1);

    // A test event reaches the receiver although the webhook does not subscribe to its kind.
    const { event_id } = await client.agents.sendTestEvent(agent.id);
    await expect
      .poll(() => received.find((e) => e.id === event_id)?.type, { timeout: 20_000 })
      .toBe('service.webhook.test');
  }, 120_000); // end to end through the pipeline, with three scheduled attempts, hand retries and a test event: more than the default 30 s when CI is busy
});
