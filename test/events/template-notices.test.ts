import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTICE_PAGE_SIZE } from '../../lib/marketplace/lifecycle/notices.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import {
  createAgent,
  enableWebhook,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
  startFilePipeline,
  startWebhookReceiver,
  waitFor,
} from './support.ts';

/**
 * Installers hear of a deprecation or a yank: PATCH …/versions/:version → notice page → DynamoDB
 * Local stream → relay → the outbox → the chosen agents' feeds → relay → fauxqs → a real receiver.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';

let pipeline: EventPipeline;
beforeAll(async () => {
  pipeline = await startFilePipeline();
});
afterAll(async () => {
  await pipeline?.stop();
});

const choose = (caller: TestUser, agentIds: string[]) =>
  invoke('setEventAgents', { caller, body: { agent_ids: agentIds } });

const templateEvents = async (owner: TestUser, agentId: string) =>
  (await feedOf(owner, agentId)).filter((e) => e.type.startsWith('template.'));

describe('template.version.* events to installers', () => {
  it('reach the chosen agents of installing workspaces (webhook, signed, and feed), nobody else', async () => {
    const author = await createTestUser();
    const templateId = await publishTemplate(author, SIMPLE_SCHEMA);
    const installer = await createTestUser();
    const chosen = await createAgent(installer);
    const notChosen = await createAgent(installer);
    const receiver = await startWebhookReceiver();
    const secret = await enableWebhook(installer, chosen, receiver.url, [
      'template.version.deprecated',
      'template.version.yanked',
    ]);
    expect((await choose(installer, [chosen])).body).toEqual({ agent_ids: [chosen], updated_at: expect.any(String) });
    expect((await invoke('getEventAgents', { caller: installer })).body.agent_ids).toEqual([chosen]);
    expect((await invoke('installTemplate', { caller: installer, params: { id: templateId } })).status).toBe(201);

    // A workspace that chose an agent but did not install, and one that installed without choosing.
    const bystander = await createTestUser();
    const bystanderAgent = await createAgent(bystander);
    await choose(bystander, [bystanderAgent]);
    const silent = await createTestUser();
    const silentAgent = await createAgent(silent);
    await invoke('installTemplate', { caller: silent, params: { id: templateId } });

    await invoke('changeVersion', {
      caller: author,
      params: { id: templateId, version: '1.2.3' },
      body: { deprecated: 'Moving to 2.x.' },
    });
    const delivered = await waitFor(
      () => receiver.deliveries.find((d) => d.json.type === 'template.version.deprecated'),
      'the deprecation delivered',
      30_000,
    );
    expect(new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({
      type: 'template.version.deprecated',
      agent_id: chosen,
      data: {
        template_id: templateId,
        template_name: 'Uptime check',
        version: '1.2.3',
        message: 'Moving to 2.x.',
        current_version: '1.2.3',
      },
    });
    const feed = await templateEvents(installer, chosen);
    expect(feed.map((e) => e.type)).toEqual(['template.version.deprecated']);
    expect(feed[0].id).toBe(delivered.json.id);

    await invoke('changeVersion', {
      caller: author,
      params: { id: templateId, version: '1.2.3' },
      body: { yanked: true, reason: 'Leaks the URL.' },
    });
    const yanked = await waitFor(
      () => receiver.deliveries.find((d) => d.json.type === 'template.version.yanked'),
      'the yank delivered',
      30_000,
    );
    expect(yanked.json.data).toEqual({
      template_id: templateId,
      template_name: 'Uptime check',
      version: '1.2.3',
      message: 'Leaks the URL.',
      current_version: null,
    });
    expect(await templateEvents(installer, notChosen)).toEqual([]);
    expect(await templateEvents(bystander, bystanderAgent)).toEqual([]);
    expect(await templateEvents(silent, silentAgent)).toEqual([]);
    // Each event once, however the relay's batches fell.
    expect(receiver.deliveries.filter((d) => d.json.type.startsWith('template.')).map((d) => d.json.type)).toEqual([
      'template.version.deprecated',
      'template.version.yanked',
    ]);
  }, 90_000);

  it('a published version reaches the chosen webhook with its diff summary, after the install moved by its policy', async () => {
    const author = await createTestUser();
    const templateId = await publishTemplate(author, SIMPLE_SCHEMA);
    const installer = await createTestUser();
    const agent = await createAgent(installer);
    const receiver = await startWebhookReceiver();
    const secret = await enableWebhook(installer, agent, receiver.url, ['template.version.published']);
    await choose(installer, [agent]);
    await invoke('installTemplate', { caller: installer, params: { id: templateId }, body: { policy: 'patch' } });
    const published = await invoke('publishVersion', {
      caller: author,
      params: { id: templateId },
      body: {
        version: '1.2.4',
        schema: { ...SIMPLE_SCHEMA, checks: [...SIMPLE_SCHEMA.checks, { id: 'tls', type: 'tls', config: {} }] },
      },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(201);
    const delivered = await waitFor(
      () => receiver.deliveries.find((d) => d.json.type === 'template.version.published'),
      'the published version delivered',
      30_000,
    );
    expect(new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>)).toMatchObject({
      type: 'template.version.published',
      agent_id: agent,
      data: {
        template_id: templateId,
        version: '1.2.4',
        previous_version: '1.2.3',
        summary: 'variables +0 -0 ~0, checks +1 -0 ~0',
        breaking: false,
        upgraded: { from: '1.2.3', to: '1.2.4' },
      },
    });
    const installed = (await invoke('listInstalled', { caller: installer })).body.data[0].installation;
    expect(installed).toMatchObject({ version: '1.2.4', policy: 'patch', behind: false });
  }, 90_000);

  it(`pages through more installers than one page (${NOTICE_PAGE_SIZE}) and tells each once`, async () => {
    const author = await createTestUser();
    const templateId = await publishTemplate(author, SIMPLE_SCHEMA);
    const installers = await Promise.all(
      Array.from({ length: NOTICE_PAGE_SIZE + 5 }, async () => {
        const user = await createTestUser();
        const agent = await createAgent(user);
        await choose(user, [agent]);
        await invoke('installTemplate', { caller: user, params: { id: templateId } });
        return { user, agent };
      }),
    );
    await invoke('changeVersion', {
      caller: author,
      params: { id: templateId, version: '1.2.3' },
      body: { deprecated: 'Old.' },
    });
    for (const { user, agent } of installers) {
      const events = await waitFor(
        async () => {
          const found = await templateEvents(user, agent);
          return found.length > 0 ? found : undefined;
        },
        'every installer told',
        60_000,
      );
      expect(events.map((e) => e.data.message)).toEqual(['Old.']);
    }
    // Once every page ran: still one each (a page run again tells nobody twice).
    const counts = await Promise.all(
      installers.map(async ({ user, agent }) => (await templateEvents(user, agent)).length),
    );
    expect(counts).toEqual(installers.map(() => 1));
  }, 150_000);

  it('a workspace chooses only its own agents (404), at most 10, each once (400)', async () => {
    const user = await createTestUser();
    const other = await createTestUser();
    const theirs = await createAgent(other);
    expect((await choose(user, [theirs])).status).toBe(404);
    const mine = await createAgent(user);
    expect((await choose(user, [mine, mine])).status).toBe(400);
    expect(
      (
        await choose(
          user,
          Array.from({ length: 11 }, () => mine),
        )
      ).status,
    ).toBe(400);
    expect((await choose(user, [])).body.agent_ids).toEqual([]);
  });
});
