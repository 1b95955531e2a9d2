import { ApiError, ConnectionError } from '../errors.ts';
import { openPushSocket } from '../http/push-socket.ts';
import { retryDelayMs } from '../http/retry-policy.ts';
import { sleep } from '../http/sleep.ts';
import { parseSse } from '../http/sse.ts';
import type { Transport } from '../http/transport.ts';
import { AGENTS_BASE, path } from '../http/url.ts';
import { paginate } from '../pagination.ts';
import type {
  FeedEvent,
  ListEventsParams,
  ReplayAccepted,
  ReplayEventsInput,
  StreamEventsOptions,
  StreamedEvent,
  SubscribeOptions,
} from '../types/agents.ts';
import type { CursorPage } from '../types/common.ts';
import type { CallOptions } from './call-options.ts';

/** An answer that will not change by asking again (bad key, unknown agent). */
const isFinal = (err: unknown) => err instanceof ApiError && err.status < 500 && err.status !== 429;

/** `/api/v1/agents/:id/events`: the agent's contract events, by polling or as a stream. */
export class Events {
  private readonly http: Transport;
  private readonly maxRetries: number;
  private readonly push: { url: string; apiKey: string };

  constructor(http: Transport, maxRetries: number, push: { url: string; apiKey: string }) {
    this.http = http;
    this.maxRetries = maxRetries;
    this.push = push;
  }

  /** One page, oldest first. Keep `next_cursor` and pass it as `after` to poll for newer events. */
  async list(
    agentId: string,
    params: ListEventsParams = {},
    options: CallOptions = {},
  ): Promise<CursorPage<FeedEvent>> {
    return this.http.body<CursorPage<FeedEvent>>({
      method: 'GET',
      path: this.pathOf(agentId),
      query: { ...params },
      signal: options.signal,
    });
  }

  /**
   * Sends the events created in [`since`, `until`) (of `types`, default every subscribed kind) to
   * the ENABLED webhook again, as new deliveries with the same event ids. `replayed` is how many;
   * a background job sends them. 409 `webhook_not_configured` without an ENABLED webhook.
   */
  async replay(agentId: string, input: ReplayEventsInput, options: CallOptions = {}): Promise<ReplayAccepted> {
    return this.http.body<ReplayAccepted>({
      method: 'POST',
      path: `${this.pathOf(agentId)}/replay`,
      body: input,
      signal: options.signal,
    });
  }

  /** Every event so far (after `after`), oldest first; ends when caught up. */
  iterate(
    agentId: string,
    params: ListEventsParams = {},
    options: CallOptions = {},
  ): AsyncGenerator<FeedEvent, void, undefined> {
    return paginate(async (cursor) => {
      const page = await this.list(agentId, { ...params, after: cursor ?? params.after }, options);
      return { items: page.data, nextCursor: page.next_cursor };
    });
  }

  /**
   * The live server-sent event stream, as an async iterator that runs until `signal` aborts or the
   * loop breaks. When the connection drops it reconnects with `Last-Event-ID` set to the last
   * event received, so nothing is missed; after `maxRetries` consecutive failed connections, or
   * on an error that retrying cannot fix (401, 404), it throws.
   */
  async *stream(agentId: string, options: StreamEventsOptions = {}): AsyncGenerator<StreamedEvent, void, undefined> {
    const { signal, reconnect = true } = options;
    let lastEventId = options.lastEventId;
    let serverRetryMs: number | undefined;
    let failures = 0;
    for (;;) {
      try {
        const response = await this.http.open({
          method: 'GET',
          path: `${this.pathOf(agentId)}/stream`,
          accept: 'text/event-stream',
          headers: lastEventId ? { 'last-event-id': lastEventId } : {},
          // Ignored by the service once Last-Event-ID is sent: a reconnect resumes, never re-maps `since`.
          query: options.since === undefined ? {} : { since: options.since },
          signal,
        });
        failures = 0;
        if (!response.body) throw new Error('the event stream has no body');
        for await (const frame of parseSse(response.body, (id) => (lastEventId = id))) {
          lastEventId = frame.lastEventId ?? lastEventId;
          serverRetryMs = frame.retryMs ?? serverRetryMs;
          yield { id: frame.lastEventId ?? '', event: frame.event, data: JSON.parse(frame.data) as FeedEvent };
        }
      } catch (err) {
        if (signal?.aborted) return;
        if (!reconnect || isFinal(err) || ++failures > this.maxRetries) throw err;
      }
      if (!reconnect || signal?.aborted) return;
      await sleep(serverRetryMs ?? retryDelayMs(failures + 1, null)!, signal).catch(() => undefined);
      if (signal?.aborted) return;
    }
  }

  /**
   * The agent's events pushed over the WebSocket channel as they happen, oldest first after `after`
   * (default: the whole retained feed), until the loop breaks or `signal` aborts. When the
   * connection drops it connects again after the last event it yielded: nothing is missed, nothing
   * repeats. A handshake that fails is looked into over REST: 401 or 404 is thrown (retrying cannot
   * fix it); anything else is retried, and thrown after `maxRetries` failed connections in a row.
   */
  async *subscribe(agentId: string, options: SubscribeOptions = {}): AsyncGenerator<FeedEvent, void, undefined> {
    const { signal } = options;
    let last = options.after;
    let failures = 0;
    while (!signal?.aborted) {
      const url = new URL(this.push.url);
      url.searchParams.set('agent_id', agentId);
      if (last !== undefined) url.searchParams.set('after', last);
      const socket = openPushSocket(url.toString(), this.push.apiKey);
      const onAbort = () => socket.close();
      signal?.addEventListener('abort', onAbort, { once: true });
      let opened = false;
      try {
        for (;;) {
          const item = await socket.next();
          if (item.kind === 'closed') {
            opened = item.opened;
            break;
          }
          const frame = item.value as FeedEvent | { error: { code: string; message: string } };
          if ('error' in frame) {
            // The service closed this connection on its side (its slot was freed): connect again.
            if (frame.error.code === 'not_found') break;
            throw new ApiError({ status: 400, code: frame.error.code, message: frame.error.message });
          }
          failures = 0;
          // Two sends may overlap on the service's side (docs/events.md, "Push"): ids sort by feed position.
          if (last !== undefined && frame.id <= last) continue;
          last = frame.id;
          yield frame;
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
        socket.close();
      }
      if (signal?.aborted) return;
      if (opened) failures = 0;
      else {
        // A refused handshake shows no status to a WebSocket: the same request over REST does.
        await this.http.body({ method: 'GET', path: AGENTS_BASE + path`/agents/${agentId}`, signal });
        if (++failures > this.maxRetries)
          throw new ConnectionError(
            `The push channel at ${this.push.url} refused ${failures} connections in a row.`,
            false,
          );
      }
      await sleep(retryDelayMs(failures + 1, null)!, signal).catch(() => undefined);
    }
  }

  private pathOf(agentId: string): string {
    return AGENTS_BASE + path`/agents/${agentId}/events`;
  }
}
