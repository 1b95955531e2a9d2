import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { newUuid } from '../../lib/core/ids.ts';
import { MAX_CLOCK_SKEW_MS, VERSION_NOTICES } from '../../lib/core/settings.ts';
import { admitNotice } from '../../lib/marketplace/lifecycle/notice-gate.ts';
import type { NoticePage } from '../../lib/marketplace/lifecycle/notice-page.ts';
import { MAX_EVENT_AGENTS } from '../../lib/marketplace/lifecycle/schemas.ts';
import { dueNotices, readGate } from '../../lib/marketplace/lifecycle/store.ts';
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
 * A template's version notices are bounded: the relay starts at most VERSION_NOTICES.perWindow of
 * them per window, the rest wait and are told at the window's end with their version's latest
 * state (PATCH → notice page → DynamoDB Local stream → relay → notice gate → delayed message on
 * fauxqs → delivery worker → flush → relay → the chosen agents' feeds → a real receiver).
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';
const WINDOW_SECONDS = 20;
process.env['NOTICE_WINDOW_SECONDS'] = String(WINDOW_SECONDS);

let pipeline: EventPipeline | undefined;
const startPipeline = async () => {
  pipeline ??= await startFilePipeline();
};
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});
afterAll(async () => {
  await pipeline?.stop();
  // Files share a worker process: the next one gets the service's own window.
  delete process.env['NOTICE_WINDOW_SECONDS'];
});

const TYPES = ['template.version.deprecated', 'template.version.yanked'];
const templateEvents = async (owner: TestUser, agentId: string) =>
  (await feedOf(owner, agentId)).filter((e) => TYPES.includes(e.type));

/** Every waiting notice of the template told and its flush done: nothing more will come. */
const settled = async (templateId: string) =>
  (await dueNotices(templateId)).length === 0 && (await readGate(templateId))?.['flush_for'] === undefined;

async function templateWithTwoVersions(author: TestUser) {
  const templateId = await publishTemplate(author, SIMPLE_SCHEMA);
  const res = await invoke('publishVersion', {
    caller: author,
    params: { id: templateId },
    body: { version: '1.3.0', schema: SIMPLE_SCHEMA },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return templateId;
}

async function installerWith(templateId: string, agents: number) {
  const user = await createTestUser();
  const agentIds = await Promise.all(Array.from({ length: agents }, () => createAgent(user)));
  expect((await invoke('setEventAgents', { caller: user, body: { agent_ids: agentIds } })).status).toBe(200);
  expect((await invoke('installTemplate', { caller: user, params: { id: templateId } })).status).toBe(201);
  return { user, agentIds };
}

const change = (author: TestUser, templateId: string, body: unknown) =>
  invoke('changeVersion', { caller: author, params: { id: templateId, version: '1.3.0' }, body });

describe('version notices per template and window', () => {
  it(`10 PATCHes, 3 installers × ${MAX_EVENT_AGENTS} agents: each agent hears ${VERSION_NOTICES.perWindow} at once and the latest state at the window's end`, async () => {
    const author = await createTestUser();
    const templateId = await templateWithTwoVersions(author);
    const installers = await Promise.all([0, 1, 2].map(() => installerWith(templateId, MAX_EVENT_AGENTS)));
    // One installer's agents all post to its one receiver.
    const receiver = await startWebhookReceiver();
    const hooked = installers[0]!;
    for (const agentId of hooked.agentIds) await enableWebhook(hooked.user, agentId, receiver.url, TYPES);

    // The finding's case: a fresh message each time and the yank flipped, 10 times. Made before the
    // relay runs, so every notice reaches the gate inside one window whatever the machine's speed.
    for (let i = 1; i <= 10; i++) {
      const res = await change(author, templateId, { deprecated: `Notice ${i}`, yanked: i % 2 === 0 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    // The template's version changes are used up for the window (test/limits/template-change-limits.test.ts).
    expect((await change(author, templateId, { deprecated: 'Notice 11' })).status).toBe(429);
    await startPipeline();

    // The final state reaches every agent: the newest message, the yank, the version now current.
    for (const { user, agentIds } of installers) {
      for (const agentId of agentIds) {
        await waitFor(
          async () => (await templateEvents(user, agentId)).some((e) => e.data.message === 'Notice 10'),
          'the latest state told',
          90_000,
        );
      }
    }
    await waitFor(() => settled(templateId), 'the flush done', 60_000);

    let feedEvents = 0;
    for (const { user, agentIds } of installers) {
      for (const agentId of agentIds) {
        const events = await templateEvents(user, agentId);
        feedEvents += events.length;
        // At most perWindow per window of the gate: the windows these events span, and the first
        // one's notices. With every notice at the gate inside one window (the relay takes 15
        // records in well under 20 s) that is 2 at once and the 2 that waited: 4.
        const times = events.map((e) => Date.parse(e.created_at));
        const windows = Math.ceil((Math.max(...times) - Math.min(...times)) / (WINDOW_SECONDS * 1000)) + 1;
        expect(events.length).toBeLessThanOrEqual(VERSION_NOTICES.perWindow * windows);
        expect(events[0]).toMatchObject({ type: 'template.version.deprecated', data: { message: 'Notice 1' } });
        // The latest state wins: the last notice of each kind is the version as it stands.
        const last = (type: string) => events.filter((e) => e.type === type).at(-1);
        expect(last('template.version.deprecated').data).toMatchObject({
          version: '1.3.0',
          message: 'Notice 10',
          current_version: '1.2.3',
        });
        expect(last('template.version.yanked').data).toMatchObject({ version: '1.3.0', current_version: '1.2.3' });
      }
    }
    // Before the gate: 15 notices × 30 agents = 450 feed events and 150 POSTs to the one installer.
    expect(feedEvents).toBeLessThan(15 * 3 * MAX_EVENT_AGENTS);
    const posts = () => receiver.deliveries.filter((d) => TYPES.includes(d.json.type));
    // Each event of the hooked agents posted once, none more.
    await waitFor(
      async () => {
        let told = 0;
        for (const agentId of hooked.agentIds) told += (await templateEvents(hooked.user, agentId)).length;
        return posts().length === told || undefined;
      },
      'one POST per event',
      30_000,
    );
    for (const agentId of hooked.agentIds) {
      expect(posts().filter((d) => d.json.agent_id === agentId)).toHaveLength(
        (await templateEvents(hooked.user, agentId)).length,
      );
    }
  }, 240_000);

  it('a change taken back while it waited is not told', async () => {
    const author = await createTestUser();
    const templateId = await templateWithTwoVersions(author);
    const { user, agentIds } = await installerWith(templateId, 1);
    const agentId = agentIds[0]!;
    // Made before the relay runs, so the three notices meet the gate in one window: two fill it,
    // the yank waits; it is taken back before the window ends.
    expect((await change(author, templateId, { deprecated: 'First.' })).status).toBe(200);
    expect((await change(author, templateId, { deprecated: 'Second.' })).status).toBe(200);
    expect((await change(author, templateId, { yanked: true, reason: 'Oops.' })).status).toBe(200);
    expect((await change(author, templateId, { yanked: false })).status).toBe(200);
    await startPipeline();
    // The second version's `template.version.published` notice meets the gate too (it shares the
    // window: installers hear at most perWindow notices of a template), so Second waits beside the yank.
    await waitFor(
      async () => (await dueNotices(templateId)).some((d) => d.page.type === 'template.version.yanked'),
      'the yank waiting',
      60_000,
    );
    await waitFor(() => settled(templateId), 'the flush done', 90_000);
    // Second was started by the flush; its page runs through the stream a moment later.
    await waitFor(async () => (await templateEvents(user, agentId)).length >= 2, 'Second told', 30_000);
    expect((await templateEvents(user, agentId)).map((e) => e.data.message)).toEqual(['First.', 'Second.']);
  }, 150_000);
});

describe('the gate itself, across instances with skewed clocks (DynamoDB Local)', () => {
  const noticeOf = (templateId: string, i: number): NoticePage => ({
    template_id: templateId,
    notice_id: newUuid(),
    page: 0,
    type: 'template.version.deprecated',
    data: { template_id: templateId, template_name: 'T', version: `1.0.${i}`, message: `m${i}`, current_version: null },
    created_at: new Date().toISOString(),
  });

  it(`admits exactly ${VERSION_NOTICES.perWindow} of 12 racing notices, counts a notice run again once, and sets the rest to wait`, async () => {
    // Waiting notices send their flush to the delivery queue: the emulator must be up.
    await startPipeline();
    const templateId = newUuid();
    const start = Date.now();
    const offsets = [-MAX_CLOCK_SKEW_MS / 2, 0, MAX_CLOCK_SKEW_MS / 2];
    const notices = Array.from({ length: 12 }, (_, i) => noticeOf(templateId, i));
    const admitted = await Promise.all(notices.map((n, i) => admitNotice(n, () => start + offsets[i % 3]!)));
    expect(admitted.filter(Boolean)).toHaveLength(VERSION_NOTICES.perWindow);
    // A stream record run again: the same notice is admitted again without taking a place.
    const first = notices[admitted.indexOf(true)]!;
    expect(await admitNotice(first, () => start)).toBe(true);
    expect((await readGate(templateId))?.['window_count']).toBe(VERSION_NOTICES.perWindow);
    // One waiting notice per kind and version (here: 10 versions), and one flush armed for the window.
    expect(await dueNotices(templateId)).toHaveLength(12 - VERSION_NOTICES.perWindow);
    expect((await readGate(templateId))?.['flush_for']).toBe((await readGate(templateId))?.['window_start']);
  });

  it('is not locked out by a window stamped an hour ahead', async () => {
    await startPipeline();
    const templateId = newUuid();
    const now = Date.now();
    for (let i = 0; i < VERSION_NOTICES.perWindow; i++)
      await admitNotice(noticeOf(templateId, i), () => now + 3_600_000);
    expect(await admitNotice(noticeOf(templateId, 9), () => now)).toBe(true);
  });
});
