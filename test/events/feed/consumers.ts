import { parseSse } from '../../../client/http/sse.ts';

/**
 * The two kinds of feed consumer the integrity tests run against a real local API: a poller that
 * follows `next_cursor` as fast as it can, and an SSE client. Both record every event id in the
 * order they received it, duplicates included, so a test can tell "missed" from "seen twice".
 */
export interface FeedConsumer {
  seen: string[];
  stop(): Promise<void>;
}

export function followCursor(apiUrl: string, apiKey: string, agentId: string): FeedConsumer {
  const seen: string[] = [];
  let running = true;
  const loop = (async () => {
    let cursor: string | null = null;
    while (running) {
      const query: string = cursor ? `?limit=100&after=${cursor}` : '?limit=100';
      const res = await fetch(`${apiUrl}/api/v1/agents/${agentId}/events${query}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (res.status !== 200) throw new Error(`poll answered ${res.status}: ${await res.text()}`);
      const page = (await res.json()) as { data: Array<{ id: string }>; next_cursor: string | null };
      for (const event of page.data) seen.push(event.id);
      cursor = page.next_cursor;
    }
  })();
  return {
    seen,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

export async function listenSse(apiUrl: string, apiKey: string, agentId: string): Promise<FeedConsumer> {
  const controller = new AbortController();
  const res = await fetch(`${apiUrl}/api/v1/agents/${agentId}/events/stream`, {
    headers: { authorization: `Bearer ${apiKey}` },
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
  const seen: string[] = [];
  const reading = (async () => {
    try {
      for await (const frame of parseSse(res.body!)) seen.push((JSON.parse(frame.data) as { id: string }).id);
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  })();
  return {
    seen,
    stop: async () => {
      controller.abort();
      await reading;
    },
  };
}

/** The whole feed, page by page from the start, once every writer is done. */
export async function finalFeed(apiUrl: string, apiKey: string, agentId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const query: string = cursor ? `?limit=100&after=${cursor}` : '?limit=100';
    const res = await fetch(`${apiUrl}/api/v1/agents/${agentId}/events${query}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const page = (await res.json()) as { data: Array<{ id: string }>; next_cursor: string | null };
    if (page.data.length === 0) return ids;
    ids.push(...page.data.map((e) => e.id));
    cursor = page.next_cursor;
  }
}
