/**
 * The push channel's WebSocket (docs/events.md, "Push"), with the global WebSocket of browsers and
 * Node ≥ 22: no dependency. The key travels as a `key.<API key>` subprotocol, since a browser's
 * WebSocket can set no header. After the handshake the client sends `{"action":"sync"}` (the server
 * then sends everything after the connection's cursor) and again every KEEP_ALIVE_MS, which keeps
 * API Gateway from closing an idle connection (10 minutes) and catches up anything a failed push left.
 */

import { MarketplaceClientError } from '../errors.ts';

export const PUSH_PROTOCOL = 'events.v1';
/** API Gateway closes a connection idle for 10 minutes; half of that leaves room. */
export const KEEP_ALIVE_MS = 5 * 60_000;

/** What one connection hands the reader: a frame's parsed JSON, the end (with whether it ever opened). */
export type SocketItem = { kind: 'frame'; value: unknown } | { kind: 'closed'; opened: boolean; code: number };

/** One connection as a pull queue: `next()` resolves with the next frame or the close. */
export interface PushSocket {
  next(): Promise<SocketItem>;
  close(): void;
}

export function openPushSocket(url: string, apiKey: string, keepAliveMs = KEEP_ALIVE_MS): PushSocket {
  // Node 20 has no global WebSocket (22 has): say so, rather than "WebSocket is not defined".
  if (typeof WebSocket === 'undefined')
    throw new MarketplaceClientError(
      'events.subscribe needs a global WebSocket: Node 22 or later, or a browser (events.stream works on Node 20).',
    );
  const socket = new WebSocket(url, [PUSH_PROTOCOL, `key.${apiKey}`]);
  const queue: SocketItem[] = [];
  let waiting: ((item: SocketItem) => void) | undefined;
  let opened = false;
  let ended = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const push = (item: SocketItem) => {
    if (ended) return;
    if (item.kind === 'closed') ended = true;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(item);
    } else queue.push(item);
  };
  const sync = () => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ action: 'sync' }));
  };
  socket.addEventListener('open', () => {
    opened = true;
    sync();
    timer = setInterval(sync, keepAliveMs);
  });
  socket.addEventListener('message', (message) => {
    if (typeof message.data !== 'string') return;
    try {
      push({ kind: 'frame', value: JSON.parse(message.data) });
    } catch {
      // Not JSON: the service sends none; a proxy's text is not an event.
    }
  });
  socket.addEventListener('close', (event) => {
    clearInterval(timer);
    push({ kind: 'closed', opened, code: event.code });
  });
  return {
    next: () => {
      const item = queue.shift();
      if (item) return Promise.resolve(item);
      return new Promise((resolve) => (waiting = resolve));
    },
    close: () => {
      clearInterval(timer);
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close(1000);
      push({ kind: 'closed', opened, code: 1000 });
    },
  };
}

/** The push URL of a service root: its ws(s) form and the local runtime's path, unless given. */
export function pushUrlOf(root: string): string {
  const url = new URL(root);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/push`;
  return url.toString();
}
