import { ApiError } from '../errors.ts';
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
} from '../types/agents.ts';
import type { CursorPage } from '../types/common.ts';
import type { CallOptions } from './call-options.ts';

/** An answer that will not change by asking again (bad key, unknown agent). */
const isFinal = (err: unknown) => err instanceof ApiError && err.status < 500 && err.status !== 429;

/** `/api/v1/agents/:id/events`: the agent's contract events, by polling or as a stream. */
export class Events {
  private readonly http: Transport;
  private readonly maxRetries: number;

  constructor(http: Transport, maxRetries: number) {
    this.http = http;
    this.maxRetries = maxRetries;
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

  private pathOf(agentId: string): string {
    return AGENTS_BASE + path`/agents/${agentId}/events`;
  }
}
