import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureDelivery } from '../../lib/events/delivery/store.ts';
import { EVENT_RETENTION_DAYS } from '../../lib/events/feed/event.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA } from './support.ts';

/** The polling feed, the delivery list and the retry route: shapes, paging, validation, access. */
let alice: TestUser;
let mallory: TestUser;
let agentId: string;
let contractIds: string[];

beforeAll(async () => {
  [alice, mallory] = await Promise.all([createTestUser(), createTestUser()]);
  agentId = await createAgent(alice);
  const templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
  contractIds = [];
  for (let i = 0; i < 3; i++) {
    const id = await createContract(alice, agentId, templateId);
    await invoke('fundContract', { caller: alice, params: { id } });
    await invoke('releaseContract', { caller: alice, params: { id } });
    contractIds.push(id);
  }
});

const page = (query: Record<string, string>, caller = alice, id = agentId) =>
  invoke('listAgentEvents', { caller, params: { id }, query });

describe('GET /agents/:id/events', () => {
  it('lists every event of the agent’s contracts oldest first, whatever the webhook status (DISABLED here)', async () => {
    const res = await page({});
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(6);
    expect(res.body.data.map((e: any) => `${e.data.contract_id} ${e.type}`)).toEqual(
      contractIds.flatMap((c) => [`${c} contract.funded`, `${c} contract.released`]),
    );
    const ids = res.body.data.map((e: any) => e.id);
    expect([...ids].sort()).toEqual(ids);
    expect(res.body.data[0]).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
      type: 'contract.funded',
      created_at: expect.stringMatching(/Z$/),
      agent_id: agentId,
      schema_version: 1,
      data: { contract_id: contractIds[0], status: 'FUNDED', amount_cents: 12_345 },
    });
    expect(res.body.next_cursor).toBe(ids.at(-1));
  });

  it('pages with next_cursor (or an event id as `after`) and keeps the cursor at the end', async () => {
    const all = (await feedOf(alice, agentId)).map((e) => e.id);
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await page({ limit: '4', ...(after ? { after } : {}) });
      seen.push(...res.body.data.map((e: any) => e.id));
      after = res.body.next_cursor;
    }
    expect(seen).toEqual(all);
    const end = await page({ after: all.at(-1) });
    expect(end.body).toEqual({ data: [], next_cursor: all.at(-1) });
    expect((await page({ after: all[1] })).body.data[0].id).toBe(all[2]);
  });

  it('keeps events at least 30 days (TTL attribute)', async () => {
    const [event] = await feedOf(alice, agentId);
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.event(agentId, event.id) }));
    expect(EVENT_RETENTION_DAYS).toBeGreaterThanOrEqual(30);
    expect(Item!['expires_at']).toBe(Math.floor(Date.parse(event.created_at) / 1000) + EVENT_RETENTION_DAYS * 86_400);
  });

  it('validates limit and after, and refuses unknown parameters', async () => {
    for (const query of [
      { limit: '0' },
      { limit: '101' },
      { limit: 'ten' },
      { after: 'ctr_x' },
      { cursor: 'x' },
    ] as Record<string, string>[]) {
      const res = await page(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });

  it('another account’s agent and an unknown agent are 404', async () => {
    for (const [caller, id] of [
      [mallory, agentId],
      [alice, 'agt_00000000000000000000000000'],
    ] as const) {
      const res = await page({}, caller, id);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('GET /agents/:id/deliveries and retry', () => {
  it('lists newest first with cursor paging', async () => {
    const events = await feedOf(alice, agentId);
    // Records as the relay makes them (this agent's webhook is not enabled, so none were made).
    for (const event of events) await ensureDelivery(event);
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await invoke('listDeliveries', {
        caller: alice,
        params: { id: agentId },
        query: { limit: '4', ...(cursor ? { cursor } : {}) },
      });
      expect(res.status).toBe(200);
      ids.push(...res.body.data.map((d: any) => d.id));
      cursor = res.body.next_cursor ?? undefined;
    } while (cursor);
    expect(ids).toEqual(events.map((e) => `dlv_${e.id.slice(4)}`).reverse());
    const first = await invoke('listDeliveries', { caller: alice, params: { id: agentId } });
    expect(first.body.data[0]).toEqual({
      id: ids[0],
      event_id: events.at(-1).id,
      event_type: 'contract.released',
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: expect.any(String),
      created_at: expect.any(String),
      destination_id: null, // a webhook delivery (an AWS destination's names it)
      contract_id: events.at(-1).data.contract_id,
      replay: false,
    });
    expect(first.body.next_cursor).toBeNull();
  });

  it('validates the query; 404 for someone else’s agent', async () => {
    expect(
      (await invoke('listDeliveries', { caller: alice, params: { id: agentId }, query: { cursor: 'evt_1' } })).status,
    ).toBe(400);
    expect(
      (await invoke('listDeliveries', { caller: alice, params: { id: agentId }, query: { limit: '500' } })).status,
    ).toBe(400);
    expect((await invoke('listDeliveries', { caller: mallory, params: { id: agentId } })).status).toBe(404);
  });

  it('retry: 404 for an unknown delivery or another account, 409 webhook_not_configured without an enabled webhook', async () => {
    const [delivery] = (await invoke('listDeliveries', { caller: alice, params: { id: agentId } })).body.data;
    const retry = (caller: TestUser, delivery_id: string) =>
      invoke('retryDelivery', { caller, params: { id: agentId, delivery_id } });
    expect((await retry(mallory, delivery.id)).status).toBe(404);
    expect((await retry(alice, 'dlv_00000000000000000000000000')).body.error.code).toBe('not_found');
    const res = await retry(alice, delivery.id);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('webhook_not_configured');
    expect(
      (
        await invoke('retryDelivery', {
          caller: alice,
          params: { id: agentId, delivery_id: delivery.id },
          body: { now: true },
        })
      ).status,
    ).toBe(400);
  });
});
