import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, ApiError, MarketplaceClient, type StreamedEvent } from '../../client/index.ts';
import { json, startScriptedServer } from './support/scripted-server.ts';

const agentId = 'agt_streamstreamstreamst';

function event(n: number): AgentEvent {
  return {
    id: `evt_0000000000000000000${n}`,
    type: 'contract.funded',
    created_at: '2026-11-22T10:00:00.000Z',
    agent_id: agentId,
    schema_version: 1,
    data: { contract_id: `ctr_${n}`, status: 'FUNDED', amount_cents: n, results: { note: 'a: b\nc' } },
  };
}

const frame = (e: AgentEvent) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

function openStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

async function take(stream: AsyncGenerator<StreamedEvent>, count: number): Promise<StreamedEvent[]> {
  const out: StreamedEvent[] = [];
  for await (const item of stream) {
    out.push(item);
    if (out.length === count) break;
  }
  return out;
}

describe('events.stream over a scripted SSE server', async () => {
  const server = await startScriptedServer();
  const client = new MarketplaceClient({ apiKey: 'k', baseUrl: server.url, maxRetries: 2 });

  it('parses id, event and data, skips comments and retry lines, and copes with frames split anywhere and CRLF line ends', async () => {
    const wire = `retry: 50\n: connected\n\n${frame(event(1))}: heartbeat\n\n${frame(event(2)).replaceAll('\n', '\r\n')}`;
    server.answer((_req, res) => {
      openStream(res);
      // One byte per write, so every field and line end is split across reads.
      const bytes = Buffer.from(wire);
      let i = 0;
      const next = () => (i < bytes.length ? res.write(bytes.subarray(i, ++i), next) : undefined);
      next();
    });
    const got = await take(client.events.stream(agentId), 2);
    expect(got).toEqual([
      { id: event(1).id, event: 'contract.funded', data: event(1) },
      { id: event(2).id, event: 'contract.funded', data: event(2) },
    ]);
    expect(server.requests[0]!.headers.accept).toBe('text/event-stream');
    expect(server.requests[0]!.url).toBe(`/api/v1/agents/${agentId}/events/stream`);
  });

  it('joins multi-line data with a newline and ignores events without data', async () => {
    server.answer((_req, res) => {
      openStream(res);
      res.write('event: ping\n\n');
      res.write(`id: ${event(3).id}\ndata: {"id": "${event(3).id}",\ndata: "type": "contract.released"}\n\n`);
    });
    const [got] = await take(client.events.stream(agentId), 1);
    expect(got).toEqual({ id: event(3).id, event: 'message', data: { id: event(3).id, type: 'contract.released' } });
  });

  it('reconnects after the stream ends, sending Last-Event-ID of the last event received', async () => {
    server.answer((_req, res, attempt) => {
      openStream(res);
      res.end(`retry: 10\n\n${frame(event(attempt))}`);
    });
    const got = await take(client.events.stream(agentId, { lastEventId: event(0).id }), 3);
    expect(got.map((g) => g.id)).toEqual([event(1).id, event(2).id, event(3).id]);
    expect(server.requests.map((r) => r.headers['last-event-id'])).toEqual([event(0).id, event(1).id, event(2).id]);
  });

  it('does not reconnect on an answer that retrying cannot change (404), and throws it', async () => {
    server.answer((_req, res) => json(res, 404, { error: { code: 'not_found', message: 'Agent not found.' } }));
    const err = await take(client.events.stream(agentId), 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    expect(server.requests).toHaveLength(1);
  });

  it('gives up after maxRetries failed connections in a row', async () => {
    server.answer((_req, res) =>
      json(res, 503, { error: { code: 'internal_error', message: 'down' } }, { 'retry-after': '0' }),
    );
    const once = new MarketplaceClient({ apiKey: 'k', baseUrl: server.url, maxRetries: 1 });
    await expect(take(once.events.stream(agentId), 1)).rejects.toMatchObject({ status: 503 });
    // open() retries a GET itself (1 + 1), and the stream reconnects once more (another 1 + 1).
    expect(server.requests).toHaveLength(4);
  });

  it('ends quietly when the signal aborts, and with reconnect: false ends when the server does', async () => {
    server.answer((_req, res) => {
      openStream(res);
      res.write(frame(event(4)));
    });
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const item of client.events.stream(agentId, { signal: controller.signal })) {
      seen.push(item.id);
      controller.abort();
    }
    expect(seen).toEqual([event(4).id]);

    server.answer((_req, res) => {
      openStream(res);
      res.end(frame(event(5)));
    });
    const all: string[] = [];
    for await (const item of client.events.stream(agentId, { reconnect: false })) all.push(item.id);
    expect(all).toEqual([event(5).id]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('list iterators', async () => {
  const server = await startScriptedServer();
  const client = new MarketplaceClient({ apiKey: 'k', baseUrl: server.url });

  it('templates.iterate follows next_cursor page by page, with the offset on the first page only', async () => {
    const pages: Record<string, { data: { id: string }[]; next: string | null }> = {
      first: { data: [{ id: 'a' }, { id: 'b' }], next: 'c1' },
      c1: { data: [], next: 'c1b' }, // a search page the service cut short: empty, but not the end
      c1b: { data: [{ id: 'c' }], next: 'c2' },
      c2: { data: [{ id: 'd' }], next: null },
    };
    server.answer((req, res) => {
      const cursor = new URL(req.url, server.url).searchParams.get('cursor') ?? 'first';
      const page = pages[cursor]!;
      json(res, 200, {
        data: page.data,
        pagination: { limit: 2, offset: 0, total: 4, has_more: page.next !== null, next_cursor: page.next },
      });
    });
    const ids: string[] = [];
    for await (const t of client.templates.iterate({ sort: 'recent', limit: 2, offset: 1 })) ids.push(t.id);
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/marketplace/templates?sort=recent&limit=2&offset=1',
      '/v1/marketplace/templates?sort=recent&limit=2&cursor=c1',
      '/v1/marketplace/templates?sort=recent&limit=2&cursor=c1b',
      '/v1/marketplace/templates?sort=recent&limit=2&cursor=c2',
    ]);
  });

  it('fetches no further page than the caller consumes', async () => {
    server.answer((_req, res) => json(res, 200, { data: [{ id: 'x' }, { id: 'y' }], next_cursor: 'more' }));
    for await (const agent of client.agents.iterate()) {
      expect(agent.id).toBe('x');
      break;
    }
    expect(server.requests).toHaveLength(1);
  });

  it('events.iterate ends when caught up: the feed hands back the same cursor to poll from', async () => {
    server.answer((req, res) => {
      const after = new URL(req.url, server.url).searchParams.get('after');
      json(
        res,
        200,
        after === 'evt_2'
          ? { data: [], next_cursor: 'evt_2' }
          : { data: [{ id: 'evt_1' }, { id: 'evt_2' }], next_cursor: 'evt_2' },
      );
    });
    const ids: string[] = [];
    for await (const e of client.events.iterate(agentId)) ids.push(e.id);
    expect(ids).toEqual(['evt_1', 'evt_2']);
    expect(server.requests).toHaveLength(2);
  });
});
