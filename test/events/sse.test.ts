import { beforeAll, describe, expect, it } from 'vitest';
import { nextPollMs, streamEvents } from '../../lib/events/feed/sse.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { openSse } from '../support/sse-client.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA, waitFor } from './support.ts';

/** GET /agents/:id/events/stream through the local API Gateway with Lambda response streaming. */
const api = useLocalApi();
let alice: TestUser;
let mallory: TestUser;
let agentId: string;
let templateId: string;

beforeAll(async () => {
  [alice, mallory] = await Promise.all([createTestUser(), createTestUser()]);
  agentId = await createAgent(alice);
  templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
  for (let i = 0; i < 2; i++)
    await invoke('fundContract', { caller: alice, params: { id: await createContract(alice, agentId, templateId) } });
});

async function open(path: string, headers: Record<string, string> = {}, user = alice) {
  const stream = await openSse(`${api.url}${path}`, { authorization: `Bearer ${user.apiKey}`, ...headers });
  return { ...stream, events: () => stream.frames.filter((f) => f.id) };
}

const streamPath = (id = agentId, query = '') => `/api/v1/agents/${id}/events/stream${query}`;

describe('server-sent events', () => {
  it('sends the backlog as id/event/data frames, then new events as they happen', async () => {
    const stream = await open(streamPath());
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.res.headers.get('x-request-id')).toBeTruthy();
    const feed = await feedOf(alice, agentId);
    await waitFor(() => stream.events().length >= 2 || undefined, 'the backlog');
    expect(stream.events().map((f) => ({ id: f.id, event: f.event, data: JSON.parse(f.data!) }))).toEqual(
      feed.map((e) => ({ id: e.id, event: e.type, data: e })),
    );

    const contractId = await createContract(alice, agentId, templateId);
    await invoke('fundContract', { caller: alice, params: { id: contractId } });
    const live = await waitFor(() => stream.events()[2], 'the live event', 5000);
    expect(live.event).toBe('contract.funded');
    expect(JSON.parse(live.data!).data.contract_id).toBe(contractId);
    await stream.close();
  });

  it('resumes after Last-Event-ID (or ?after): nothing before it, nothing twice', async () => {
    const feed = await feedOf(alice, agentId);
    for (const [headers, query] of [
      [{ 'Last-Event-ID': feed[0].id }, ''],
      [{}, `?after=${feed[0].id}`],
    ] as const) {
      const stream = await open(streamPath(agentId, query), headers);
      await waitFor(() => stream.events().length >= feed.length - 1 || undefined, 'the rest');
      await new Promise((r) => setTimeout(r, 300));
      expect(stream.events().map((f) => f.id)).toEqual(feed.slice(1).map((e) => e.id));
      await stream.close();
    }
  });

  it('errors before streaming are JSON: 404 for someone else’s agent, 400 for a bad Last-Event-ID, 401 without a key', async () => {
    const other = await open(streamPath(), {}, mallory);
    expect(other.res.status).toBe(404);
    expect(other.res.headers.get('content-type')).toMatch(/^application\/json/);
    await other.close();
    const bad = await fetch(`${api.url}${streamPath()}`, {
      headers: { authorization: `Bearer ${alice.apiKey}`, 'last-event-id': 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toMatchObject({
      code: 'validation_error',
      details: [{ path: 'Last-Event-ID' }],
    });
    const missing = await fetch(`${api.url}${streamPath()}`, {
      headers: { authorization: `Bearer ${mallory.apiKey}` },
    });
    expect(await missing.json()).toEqual({ error: { code: 'not_found', message: 'Agent not found.' } });
    expect((await fetch(`${api.url}${streamPath()}`)).status).toBe(401);
  });
});

describe('adaptive polling', () => {
  it('looks again soon after an event and backs off to the ceiling while the feed is quiet', () => {
    const bounds = { minPollMs: 250, pollMs: 1000 };
    expect(nextPollMs(1000, true, bounds)).toBe(250);
    const quiet: number[] = [];
    let wait = 250;
    for (let i = 0; i < 4; i++) {
      wait = nextPollMs(wait, false, bounds);
      quiet.push(wait);
    }
    expect(quiet).toEqual([500, 1000, 1000, 1000]);
    expect(nextPollMs(0, false, bounds)).toBe(250);
  });
});

describe('the stream loop', () => {
  it('writes a heartbeat comment when idle and ends itself before the time runs out', async () => {
    const chunks: string[] = [];
    const deadline = Date.now() + 700;
    const started = Date.now();
    const feed = await feedOf(alice, agentId);
    await streamEvents(
      agentId,
      feed.at(-1).id,
      { write: (c) => chunks.push(c), closed: () => false },
      {
        remainingMs: () => deadline - Date.now(),
        reserveMs: 100,
        pollMs: 50,
        heartbeatMs: 150,
      },
    );
    expect(Date.now() - started).toBeLessThan(1500);
    expect(chunks[0]).toMatch(/^retry: \d+\n/);
    expect(chunks.filter((c) => c === ': heartbeat\n\n').length).toBeGreaterThanOrEqual(2);
    expect(chunks.some((c) => c.startsWith('id:'))).toBe(false);
  });

  it('stops as soon as the client is gone', async () => {
    let closed = false;
    setTimeout(() => (closed = true), 100);
    const started = Date.now();
    await streamEvents(
      agentId,
      undefined,
      { write: () => undefined, closed: () => closed },
      { remainingMs: () => 60_000, pollMs: 50 },
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reads no further while the client has not taken what was written (a client that does not read cannot make it buffer the feed)', async () => {
    const feed = await feedOf(alice, agentId);
    expect(feed.length).toBeGreaterThanOrEqual(3);
    const frames: string[] = [];
    let letThrough!: () => void;
    let waits = 0;
    let closed = false;
    const sink = {
      write: (c: string) => void frames.push(c),
      closed: () => closed,
      drained: () => {
        waits++;
        return new Promise<void>((resolve) => (letThrough = resolve));
      },
    };
    const running = streamEvents(agentId, undefined, sink, { remainingMs: () => 60_000, pollMs: 20, pageSize: 1 });
    await new Promise((r) => setTimeout(r, 500));
    // One page of one event written, then it waits: no second read however long the client stalls.
    expect(frames.filter((f) => f.startsWith('id:')).length).toBe(1);
    expect(waits).toBe(1);
    letThrough();
    await waitFor(
      () => frames.filter((f) => f.startsWith('id:')).length === 2 || undefined,
      'the next page once drained',
    );
    closed = true;
    letThrough();
    await running;
  });
});
