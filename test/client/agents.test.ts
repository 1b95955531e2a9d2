import { describe, expect, it } from 'vitest';
import { useLocalApi } from '../support/local-api.ts';
import { clientForNewUser } from './support/local-client.ts';

const api = useLocalApi();
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe('client: agents and webhook configuration against the local API', () => {
  it('creates, reads and lists the caller’s agents, page by page', async () => {
    const { client } = await clientForNewUser(api.url);
    const created = await client.agents.create({ name: 'buyer bot' });
    expect(created).toEqual({
      id: expect.stringMatching(/^agt_[A-Za-z0-9_-]{20,}$/),
      name: 'buyer bot',
      webhook_url: null,
      events: [],
      webhook_status: 'DISABLED',
      webhook_disabled_reason: null,
      last_verified_at: null,
      schema_versions: {},
      rate_limit: null,
      filter: null,
      filter_never_matches: false,
      headers: [],
      created_at: iso,
      webhook_circuit: { state: 'closed', failures: 0, open_until: null, max_requests_at_once: 2 },
    });
    expect(await client.agents.get(created.id)).toEqual(created);

    const more = [await client.agents.create({ name: 'two' }), await client.agents.create({ name: 'three' })];
    const firstPage = await client.agents.list({ limit: 2 });
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.next_cursor).toEqual(expect.any(String));
    const all = [];
    for await (const agent of client.agents.iterate({ limit: 2 })) all.push(agent.id);
    expect(all.sort()).toEqual([created.id, ...more.map((a) => a.id)].sort());
  });

  it('configures the webhook (secret on first configuration), reads and rotates the secret, disables it', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'hooked' });
    const configured = await client.agents.configureWebhook(agent.id, {
      webhook_url: 'https://hooks.example.com/in',
      events: ['contract.funded', 'contract.released'],
    });
    expect(configured).toMatchObject({
      id: agent.id,
      webhook_url: 'https://hooks.example.com/in',
      events: ['contract.funded', 'contract.released'],
      webhook_status: 'PENDING_VERIFICATION',
    });
    expect(configured.webhook_secret).toMatch(/^whsec_/);
    expect(await client.agents.getWebhookSecret(agent.id)).toEqual({ webhook_secret: configured.webhook_secret });

    const again = await client.agents.configureWebhook(agent.id, {
      webhook_url: 'https://hooks.example.com/other',
      events: ['contract.refunded'],
    });
    expect(again.webhook_secret).toBeUndefined();

    const rotated = await client.agents.rotateWebhookSecret(agent.id);
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(configured.webhook_secret);
    expect(await client.agents.getWebhookSecret(agent.id)).toEqual(rotated);

    const disabled = await client.agents.disableWebhook(agent.id);
    expect(disabled).toMatchObject({
      webhook_url: null,
      webhook_status: 'DISABLED',
      webhook_disabled_reason: 'manual',
    });
    expect((await client.agents.get(agent.id)).webhook_status).toBe('DISABLED');
  });

  it('asks for a replay: 409 webhook_not_configured until the webhook is ENABLED', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'replayer' });
    await expect(
      client.events.replay(agent.id, { since: new Date(Date.now() - 60_000).toISOString() }),
    ).rejects.toMatchObject({ status: 409, code: 'webhook_not_configured' });
  });

  it('deletes an agent: 404 afterwards', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'short-lived' });
    expect(await client.agents.delete(agent.id)).toBeUndefined();
    await expect(client.agents.get(agent.id)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('reads the event catalog', async () => {
    const { client } = await clientForNewUser(api.url);
    const catalog = await client.eventTypes.list();
    expect(catalog.data.map((t) => [t.type, t.configurable])).toEqual([
      ['contract.funded', true],
      ['contract.released', true],
      ['contract.refunded', true],
      ['contract.verification.completed', true],
      ['template.version.deprecated', true],
      ['template.version.yanked', true],
      ['template.version.published', true],
      ['service.webhook.test', false],
      ['service.webhook.disabled', false],
      ['agent.webhook.disabled', false],
      ['agent.webhook.failing', false],
      ['agent.webhook.unverified', false],
      ['agent.filter.changed', false],
    ]);
    expect(catalog.data[0]!.schema).toMatchObject({
      type: 'object',
      properties: { type: { const: 'contract.funded' } },
    });
  });

  it('lists an agent’s events and deliveries (empty before any contract)', async () => {
    const { client } = await clientForNewUser(api.url);
    const agent = await client.agents.create({ name: 'quiet' });
    expect(await client.events.list(agent.id)).toEqual({ data: [], next_cursor: null });
    expect(await client.deliveries.list(agent.id)).toEqual({ data: [], next_cursor: null });
  });
});
