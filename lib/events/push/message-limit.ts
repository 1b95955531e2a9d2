/**
 * The push channel's message rates (PUSH.messageLimits; docs/events.md, "Push"). Deployed, every
 * message a client sends is a pushSync invocation, and the WebSocket stage's throttle is shared by
 * every client: one connection sending thousands of syncs would spend it for all, and each sync reads
 * the feed. So a connection may send `perConnection` messages per window and an API key `perKey` over
 * all its connections; past either, a message gets a `rate_limited` error frame and nothing else, and
 * the `closeAfterRefused`-th refused message of a connection's window closes it.
 *
 * The windows are items in the store, counted by conditional writes (lib/limits/window-limit.ts's
 * window), so they hold across any number of function instances. The local gateway applies the same
 * per-connection verdict in memory before it invokes anything (local/gateway/push-gateway.ts): in
 * one process, the refused messages must not cost the other clients their CPU.
 */
import { type AppError, rateLimited } from '../../core/errors.ts';
import { PUSH } from '../../core/settings.ts';
import { takeWindowSlot } from '../../limits/window-limit.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY } from '../../store/keys.ts';
import { countMessage } from './store.ts';

/**
 * `ok`: handle the message. `refused`: answer `error` as a frame. `close`: answer it and close the
 * connection (the refusals persist). `dropped`: the connection is being closed; nothing to do.
 */
export type MessageVerdict =
  | { kind: 'ok' }
  | { kind: 'dropped' }
  | { kind: 'refused'; error: AppError }
  | { kind: 'close'; error: AppError };

const { windowMs, perConnection, perKey, closeAfterRefused } = PUSH.messageLimits;
const windowSeconds = windowMs / 1000;

/** The verdict on a connection's `count`-th message (refused ones counted) of a window that ends `msLeft` from now. */
export function connectionVerdict(count: number, msLeft: number): MessageVerdict {
  if (count <= perConnection) return { kind: 'ok' };
  const refusals = count - perConnection;
  if (refusals > closeAfterRefused) return { kind: 'dropped' };
  const wait = Math.max(1, Math.ceil(msLeft / 1000));
  const limit = `A push connection may send ${perConnection} messages per ${windowSeconds} s (a sync at connect and every ${PUSH.keepAliveSeconds} s is all a client needs)`;
  return refusals < closeAfterRefused
    ? { kind: 'refused', error: rateLimited(`${limit}; this one was dropped. Send again in ${wait} s.`, wait) }
    : {
        kind: 'close',
        error: rateLimited(
          `${limit}; after ${closeAfterRefused} refused messages the connection is closed. Connect again in ${wait} s.`,
          wait,
        ),
      };
}

/** Counts one message of the connection in the store (across every instance) and gives its verdict. */
export async function connectionMessageVerdict(connectionId: string, nowMs = Date.now()): Promise<MessageVerdict> {
  const { count, msLeft } = await countMessage(connectionId, nowMs);
  return connectionVerdict(count, msLeft);
}

/** Takes one of the key's messages of the window, or throws the `rate_limited` error its frame answers. */
export const takeKeyMessage = (keyHash: string, now: () => number = Date.now, limit: number = perKey): Promise<void> =>
  takeWindowSlot(
    {
      key: keys.pushKeyLimit(keyHash),
      entity: ENTITY.pushKeyLimit,
      perWindow: limit,
      windowMs,
      refusal: `An API key's push connections may send ${limit} messages per ${windowSeconds} s together; this one was dropped.`,
    },
    now,
  );
