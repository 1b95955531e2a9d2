import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { openSse } from '../support/sse-client.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA, waitFor } from './support.ts';

/** `GET …/events/stream?since=now|<ISO time>|<event id>` through the local API, and Last-Event-ID over it. */
const api = useLocalApi();
let alice: TestUser;
let templateId: string;

beforeAll(async () => {
  alice = await createTestUser();
  templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
});

async function open(agentId: string, query: string, headers: Record<string, string> = {}) {
  const stream = await openSse(`${api.url}/api/v1/agents/${agentId}/events/stream${query}`, {
    authorization: `Bearer ${alice.apiKey}`,
    ...headers,
  });
  return { ...stream, eventIds: () => stream.frames.filter((f) => f.data).map((f) => f.id!) };
}

async function fundNew(agentId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    expect(
      (
        await invoke('fundContract', {
          caller: alice,
          params: { id: await createContract(alice, agentId, templateId) },
        })
      ).status,
    ).toBe(200);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SSE start point', () => {
  it('since=now skips the retained feed, sends its start as an id: line, and a reconnect from that id misses nothing', async () => {
    const agentId = await createAgent(alice);
    await fundNew(agentId, 3);
    const stream = await open(agentId, '?since=now');
    expect(stream.res.status).toBe(200);
    const start = await waitFor(() => stream.frames.find((f) => f.id && !f.data), 'the announced start');
    expect(start.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    await fundNew(agentId, 1);
    const feed = await feedOf(alice, agentId);
    await waitFor(() => stream.eventIds().length >= 1 || undefined, 'the live event', 10_000);
    expect(stream.eventIds()).toEqual([feed[3].id]);
    await stream.close();

    // While disconnected another event happens; EventSource sends the announced id back.
    await fundNew(agentId, 1);
    const again = await open(agentId, '?since=now', { 'Last-Event-ID': start.id! });
    await waitFor(() => again.eventIds().length >= 2 || undefined, 'both events after the start', 10_000);
    expect(again.eventIds()).toEqual((await feedOf(alice, agentId)).slice(3).map((e) => e.id));
    await again.close();
  });

  it('since=<ISO time> starts at the first event created at or after it (bisecting the feed), and an older time gives everything', async () => {
    const agentId = await createAgent(alice);
    await fundNew(agentId, 7);
    await pause(20);
    const boundary = new Date().toISOString();
    await pause(20);
    await fundNew(agentId, 5);
    const feed = await feedOf(alice, agentId);
    const expected = feed.filter((e) => e.created_at >= boundary).map((e) => e.id);
    expect(expected).toHaveLength(5);

    for (const since of [boundary, boundary.replace('Z', '+00:00'), feed[7].created_at]) {
      const stream = await open(agentId, `?since=${encodeURIComponent(since)}`);
      expect(stream.res.status, since).toBe(200);
      await waitFor(() => stream.eventIds().length >= 5 || undefined, `events since ${since}`, 10_000);
      await pause(300); // nothing else arrives
      expect(stream.eventIds(), since).toEqual(expected);
      await stream.close();
    }
    const everything = await open(agentId, `?since=${encodeURIComponent('2000-01-01T00:00:00Z')}`);
    await waitFor(() => everything.eventIds().length >= 12 || undefined, 'the whole feed', 10_000);
    expect(everything.eventIds()).toEqual(feed.map((e) => e.id));
    await everything.close();

    const future = await open(agentId, `?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    await waitFor(() => future.frames.find((f) => f.id && !f.data), 'the announced start');
    await fundNew(agentId, 1);
    await waitFor(() => future.eventIds().length >= 1 || undefined, 'the live event', 10_000);
    expect(future.eventIds()).toEqual([(await feedOf(alice, agentId))[12].id]);
    await future.close();
  });

  it('since=<event id> resumes after that event; Last-Event-ID wins over since', async () => {
    const agentId = await createAgent(alice);
    await fundNew(agentId, 4);
    const feed = await feedOf(alice, agentId);
    const byId = await open(agentId, `?since=${feed[1].id}`);
    await waitFor(() => byId.eventIds().length >= 2 || undefined, 'events after the id', 10_000);
    expect(byId.eventIds()).toEqual([feed[2].id, feed[3].id]);
    await byId.close();

    const header = await open(agentId, '?since=now', { 'Last-Event-ID': feed[0].id });
    await waitFor(() => header.eventIds().length >= 3 || undefined, 'events after Last-Event-ID', 10_000);
    expect(header.eventIds()).toEqual(feed.slice(1).map((e) => e.id));
    await header.close();
  });

  it('refuses a since that is none of the three forms, or since with after: 400 before streaming', async () => {
    const agentId = await createAgent(alice);
    for (const query of [
      '?since=yesterday',
      '?since=2026-11-23',
      '?since=2026-11-23T10:00:00',
      '?since=2026-02-30T10:00:00Z',
      '?since=',
      `?since=now&after=evt_00000000000000000000000000`,
    ]) {
      const stream = await open(agentId, query);
      expect(stream.res.status, query).toBe(400);
      expect(((await stream.res.json()) as { error: { code: string } }).error.code).toBe('validation_error');
    }
  });
});
