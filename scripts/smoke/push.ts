/** The smoke run's push steps: the client's subscription, and one connection read frame by frame. */
import { openPushSocket } from '../../client/http/push-socket.ts';
import type { FeedEvent, MarketplaceClient } from '../../client/index.ts';
import { SmokeFailure } from './failure.ts';

/** The first event `match` accepts, through the client's push subscription, which closes when it returns. */
export async function firstPushed(
  client: MarketplaceClient,
  agentId: string,
  timeoutMs: number,
  match: (event: FeedEvent) => boolean,
): Promise<FeedEvent> {
  const seen: string[] = [];
  for await (const event of client.events.subscribe(agentId, { signal: AbortSignal.timeout(timeoutMs) })) {
    if (match(event)) return event;
    seen.push(event.type);
  }
  throw new SmokeFailure(
    `no matching event pushed within ${timeoutMs / 1000} s (got: ${seen.join(', ') || 'nothing'})`,
  );
}

/**
 * Every frame one push connection brings, up to the first that `last` accepts; a frame in the
 * service's error format, a close or the time running out first fails the step.
 */
export async function pushedUntil(
  url: string,
  key: string,
  timeoutMs: number,
  last: (frame: unknown) => boolean,
): Promise<unknown[]> {
  const socket = openPushSocket(url, key);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    socket.close();
  }, timeoutMs);
  const frames: unknown[] = [];
  try {
    for (;;) {
      const item = await socket.next();
      if (item.kind === 'closed') {
        const got = frames.map((f) => (f as FeedEvent).type).join(', ') || 'nothing';
        if (timedOut) throw new SmokeFailure(`no matching event pushed within ${timeoutMs / 1000} s (got: ${got})`);
        const end = item.opened ? `closed (${item.code})` : 'was refused';
        throw new SmokeFailure(`the push connection ${end} before the event came (got: ${got})`);
      }
      if ((item.value as { error?: unknown }).error)
        throw new SmokeFailure(`the push channel sent ${JSON.stringify(item.value)}`);
      frames.push(item.value);
      if (last(item.value)) return frames;
    }
  } finally {
    clearTimeout(timer);
    socket.close();
  }
}
