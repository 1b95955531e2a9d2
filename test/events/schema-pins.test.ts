import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SCHEMA_VERSIONS } from '../../lib/core/event-types.ts';
import { VERSION_STEPS } from '../../lib/core/event-versions.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useDeliveryQueue } from './queue-harness.ts';
import {
  configureWebhook,
  createAgent,
  createContract,
  enableWebhook,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
  startWebhookReceiver,
} from './support.ts';

/**
 * Schema-version pins (docs/webhooks.md, "Schema versions and pins"): PATCH …/webhook and POST
 * …/destinations take `schema_versions`, refuse a kind or version the service cannot send with a
 * 400 naming the versions it can, and show the pins. The delivery worker shapes each attempt to the
 * webhook's pins and signs what it sends. Every kind a webhook receives has one version today, so
 * the shaping is driven here by a test-only second version of `contract.funded` (registered in
 * beforeAll, removed in afterAll), emitted by the real outbox and delivered by the real worker on
 * fauxqs to real receivers.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,3600,3600';
const { relay, deliverVisible } = useDeliveryQueue();
let owner: TestUser;
let templateId: string;

const versions = EVENT_SCHEMA_VERSIONS as Record<string, number>;
beforeAll(async () => {
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

const patchWebhook = (agentId: string, body: Record<string, unknown>) =>
  invoke('configureWebhook', { caller: owner, params: { id: agentId }, body });

describe('configuring pins', () => {
  it('PATCH …/webhook stores and shows them; absent keeps them, {} removes them', async () => {
    const agentId = await createAgent(owner);
    const url = 'http://127.0.0.1:9/hook';
    const pinned = await patchWebhook(agentId, {
      webhook_url: url,
      events: ['contract.funded'],
      schema_versions: { 'service.webhook.disabled': 1 },
    });
    expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
    expect(pinned.body.schema_versions).toEqual({ 'service.webhook.disabled': 1 });

    await configureWebhook(owner, agentId, url, ['contract.refunded']);
    const kept = await invoke('getAgent', { caller: owner, params: { id: agentId } });
    expect(kept.body).toMatchObject({
      events: ['contract.refunded'],
      schema_versions: { 'service.webhook.disabled': 1 },
    });

    const cleared = await patchWebhook(agentId, { webhook_url: url, events: ['contract.funded'], schema_versions: {} });
    expect(cleared.body.schema_versions).toEqual({});
  });

  it.each([
    [{ 'contract.funded': 2 }, 'contract.funded can be sent at schema version 1, not 2.'],
    [{ 'service.webhook.disabled': 3 }, 'service.webhook.disabled can be sent at schema version 1 or 2, not 3.'],
    [{ 'service.webhook.disabled': 0 }, 'service.webhook.disabled can be sent at schema version 1 or 2, not 0.'],
    [{ 'contract.funded': 1.5 }, 'Expected a whole version number.'],
    [{ 'contract.nothing': 1 }, undefined],
  ])('PATCH …/webhook refuses %j with a 400 naming the versions there are', async (pins, message) => {
    const agentId = await createAgent(owner);
    const res = await patchWebhook(agentId, {
      webhook_url: 'http://127.0.0.1:9/hook',
      events: ['contract.funded'],
      schema_versions: pins,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const detail = res.body.error.details.find((d: { path: string }) => d.path.startsWith('schema_versions'));
    expect(detail, JSON.stringify(res.body)).toBeDefined();
    if (message) expect(detail.message).toBe(message);
    // Nothing was configured.
    expect((await invoke('getAgent', { caller: owner, params: { id: agentId } })).body.webhook_status).toBe('DISABLED');
  });

  it('POST …/destinations takes the same shape and shows it; a version it cannot send is a 400', async () => {
    const agentId = await createAgent(owner);
    const arn = 'arn:aws:sqs:us-east-1:111122223333:pinned';
    const refused = await invoke('createDestination', {
      caller: owner,
      params: { id: agentId },
      body: { arn, events: ['contract.funded'], schema_versions: { 'contract.funded': 7 } },
    });
    expect(refused.status).toBe(400);
    const created = await invoke('createDestination', {
      caller: owner,
      params: { id: agentId },
      body: { arn, events: ['contract.funded'], schema_versions: { 'service.webhook.disabled': 1 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.schema_versions).toEqual({ 'service.webhook.disabled': 1 });
    const listed = await invoke('listDestinations', { caller: owner, params: { id: agentId } });
    expect(listed.body.data.map((d: { schema_versions: unknown }) => d.schema_versions)).toEqual([
      { 'service.webhook.disabled': 1 },
    ]);
  });
});

describe('deliveries shaped to the pins (a test-only version 2 of contract.funded)', () => {
  beforeAll(() => {
    // Test-only: "version 1 spelled the status in lower case".
    versions['contract.funded'] = 2;
    VERSION_STEPS['contract.funded'] = {
      2: (data) => (typeof data['status'] === 'string' ? { ...data, status: data['status'].toLowerCase() } : undefined),
    };
  });
  afterAll(() => {
    versions['contract.funded'] = 1;
    delete VERSION_STEPS['contract.funded'];
  });

  async function fundedTo(pins: Record<string, number> | undefined) {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    const secret = await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    if (pins)
      expect(
        (await patchWebhook(agentId, { webhook_url: receiver.url, events: ['contract.funded'], schema_versions: pins }))
          .status,
      ).toBe(200);
    if (pins) expect((await invoke('verifyWebhook', { caller: owner, params: { id: agentId } })).status).toBe(200);
    const contractId = await createContract(owner, agentId, templateId);
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    const event = (await feedOf(owner, agentId)).at(-1)!;
    await relay(agentId, event.id);
    return { receiver, secret, event };
  }

  it('a webhook pinned to version 1 receives version 1, signed as sent; an unpinned one the version made; the feed keeps what was made', async () => {
    const pinned = await fundedTo({ 'contract.funded': 1 });
    const unpinned = await fundedTo(undefined);
    await deliverVisible();

    for (const { receiver, secret, event } of [pinned, unpinned]) {
      expect(event).toMatchObject({ type: 'contract.funded', schema_version: 2, data: { status: 'FUNDED' } });
      const [delivery, ...more] = receiver.deliveries.filter((d) => d.json.type === 'contract.funded');
      expect(more).toEqual([]);
      // The signature covers the body as shaped: the reference library accepts it.
      expect(new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toEqual(
        delivery!.json,
      );
      expect(delivery!.json.id).toBe(event.id);
    }
    expect(pinned.receiver.deliveries.at(-1)!.json).toMatchObject({ schema_version: 1, data: { status: 'funded' } });
    expect(unpinned.receiver.deliveries.at(-1)!.json).toMatchObject({ schema_version: 2, data: { status: 'FUNDED' } });
  });

  it('an event the older version cannot say is sent at the version made', async () => {
    VERSION_STEPS['contract.funded'] = { 2: () => undefined };
    const pinned = await fundedTo({ 'contract.funded': 1 });
    await deliverVisible();
    expect(pinned.receiver.deliveries.at(-1)!.json).toMatchObject({
      type: 'contract.funded',
      schema_version: 2,
      data: { status: 'FUNDED' },
    });
  });
});
