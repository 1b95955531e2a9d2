import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import {
  configureWebhook,
  createAgent,
  createContract,
  deliveriesOf,
  enableWebhook,
  feedOf,
  publishTemplate,
  SIMPLE_SCHEMA,
  startFilePipeline,
  startWebhookReceiver,
  waitFor,
} from './support.ts';

/**
 * POST …/events/replay on the local pipeline: the job's pages go through the table stream to the
 * relay, which makes deliveries to a real receiver. Pages of 3 slots, so a handful of events
 * crosses several pages.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,1,1';
process.env['REPLAY_PAGE_ITEMS'] = '3';

let pipeline: EventPipeline;
let owner: TestUser;
let templateId: string;

beforeAll(async () => {
  pipeline = await startFilePipeline();
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});
afterAll(async () => {
  await pipeline?.stop();
});

const replay = (agentId: string, body: unknown, caller = owner) =>
  invoke('replayEvents', { caller, params: { id: agentId }, body });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` contracts funded then released: 2n events, oldest first. */
async function history(agentId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const id = await createContract(owner, agentId, templateId);
    expect((await invoke('fundContract', { caller: owner, params: { id } })).status).toBe(200);
    expect((await invoke('releaseContract', { caller: owner, params: { id } })).status).toBe(200);
  }
}

/** Waits until the agent has `count` delivery records, all succeeded: no attempt of them is still to come. */
const allSucceeded = (agentId: string, count: number) =>
  waitFor(
    async () => {
      const records = await deliveriesOf(owner, agentId);
      return records.length === count && records.every((r) => r.status === 'succeeded') ? records : undefined;
    },
    `${count} succeeded delivery records`,
    30_000,
  );

describe('POST /agents/:id/events/replay', () => {
  it('sends every event of the window again, including those from before the webhook was enabled, with the same ids', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    const since = new Date(Date.now() - 60_000).toISOString();
    await history(agentId, 4); // while the webhook is DISABLED: delivered to nobody
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded', 'contract.released']);
    await pause(500);
    expect(receiver.deliveries).toEqual([]);

    const res = await replay(agentId, { since });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ replayed: 8 });
    const feed = await feedOf(owner, agentId);
    await waitFor(() => receiver.deliveries.length >= 8 || undefined, 'eight replayed deliveries', 60_000);
    await pause(1000); // and no more than that
    expect(receiver.deliveries.map((d) => d.json.id).sort()).toEqual(feed.map((e) => e.id).sort());
    for (const d of receiver.deliveries) expect(d.json).toEqual(feed.find((e) => e.id === d.json.id));
    await allSucceeded(agentId, 8);
  }, 120_000);

  it('keeps to the window and the kinds asked; a second replay sends them again as new deliveries', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded', 'contract.released']);
    await history(agentId, 3);
    await pause(20);
    const until = new Date().toISOString();
    await pause(20);
    await history(agentId, 1); // after `until`
    // Every live delivery settled, not just posted: a slow attempt retried later would otherwise
    // land among the replay's posts below.
    await allSucceeded(agentId, 8);
    const feed = await feedOf(owner, agentId);
    const inWindow = feed.filter((e) => e.created_at < until && e.type === 'contract.funded').map((e) => e.id);
    expect(inWindow).toHaveLength(3);

    receiver.deliveries.length = 0;
    const since = new Date(Date.now() - 3_600_000).toISOString();
    for (let round = 1; round <= 2; round++) {
      const res = await replay(agentId, { since, until, types: ['contract.funded'] });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ replayed: 3 });
      await waitFor(() => receiver.deliveries.length >= 3 * round || undefined, `replay ${round}`, 60_000);
    }
    await pause(1000);
    expect(receiver.deliveries.map((d) => d.json.id).sort()).toEqual([...inWindow, ...inWindow].sort());
    expect(await deliveriesOf(owner, agentId)).toHaveLength(8 + 6);
  }, 120_000);

  it('answers 409 without an ENABLED webhook, 400 for a bad window or an unsubscribed kind, 404 for another account', async () => {
    const agentId = await createAgent(owner);
    const since = new Date(Date.now() - 3_600_000).toISOString();
    expect((await replay(agentId, { since })).status).toBe(409);
    await configureWebhook(owner, agentId, 'https://hooks.example.com/in', ['contract.funded']);
    const pending = await replay(agentId, { since });
    expect(pending.status).toBe(409);
    expect(pending.body.error.code).toBe('webhook_not_configured');

    const receiver = await startWebhookReceiver();
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    const now = Date.now();
    for (const body of [
      {},
      { since: 'yesterday' },
      { since, until: since },
      { since: new Date(now - 31 * 86_400_000).toISOString(), until: new Date(now).toISOString() },
      { since, types: ['contract.released'] },
      { since, types: [] },
      { since, types: ['contract.funded', 'contract.funded'] },
      { since, types: ['service.webhook.test'] },
      { since, other: 1 },
    ]) {
      const res = await replay(agentId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await replay(agentId, { since })).body).toEqual({ replayed: 0 });
    expect((await replay(agentId, { since }, await createTestUser())).status).toBe(404);
  });
});
