import { afterEach, describe, expect, it } from 'vitest';
import { MarketplaceClientError } from '../../client/errors.ts';
import { openPushSocket } from '../../client/http/push-socket.ts';

/**
 * `events.subscribe` on a runtime without a global WebSocket (Node 20): one sentence naming the
 * Node it needs, not "WebSocket is not defined". The global is taken away for the test and put back.
 */
describe('the push socket without a global WebSocket', () => {
  const original = globalThis.WebSocket;
  afterEach(() => {
    globalThis.WebSocket = original;
  });

  it('throws a MarketplaceClientError that names Node 22', () => {
    // @ts-expect-error: Node 20 has none; this is what it looks like there.
    delete globalThis.WebSocket;
    expect(() => openPushSocket('ws://127.0.0.1:1/push', 'mk_x')).toThrow(MarketplaceClientError);
    expect(() => openPushSocket('ws://127.0.0.1:1/push', 'mk_x')).toThrow(/needs a global WebSocket: Node 22 or later/);
  });
});
