import http from 'node:http';
import { PUSH } from '../../lib/core/settings.ts';
import type { TestUser } from '../support/lambda.ts';

/** One push connection as a test sees it: every frame it got, parsed, in order. */
export interface TestSocket {
  frames: any[];
  /** The events a client keeps: each new id above the last one kept (a repeat of a passed id is dropped, as docs/events.md says to). */
  events: () => any[];
  opened: Promise<void>;
  closed: Promise<number>;
  sync(): void;
  send(text: string): void;
  close(): Promise<void>;
}

export const pushUrl = (apiUrl: string, query: Record<string, string>) =>
  `${apiUrl.replace('http', 'ws')}${PUSH.localPath}?${new URLSearchParams(query)}`;

/** A client as docs/events.md describes one: the key as a subprotocol, a sync once open. */
export function openSocket(apiUrl: string, user: TestUser, query: Record<string, string>): TestSocket {
  const socket = new WebSocket(pushUrl(apiUrl, query), [PUSH.protocol, `key.${user.apiKey}`]);
  const frames: any[] = [];
  socket.addEventListener('message', (m) => frames.push(JSON.parse(String(m.data))));
  const sync = () => socket.send(JSON.stringify({ action: 'sync' }));
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => {
      sync();
      resolve();
    });
    socket.addEventListener('error', () => reject(new Error('handshake refused')));
  });
  const closed = new Promise<number>((resolve) => socket.addEventListener('close', (e) => resolve(e.code)));
  return {
    frames,
    events: () => {
      const kept: any[] = [];
      for (const f of frames) if (!f.error && (kept.length === 0 || f.id > kept.at(-1).id)) kept.push(f);
      return kept;
    },
    opened,
    closed,
    sync,
    send: (text) => socket.send(text),
    close: async () => {
      socket.close(1000);
      await closed;
    },
  };
}

/** The handshake's HTTP answer: 101, or the status and error body a refused one gets. */
export function handshake(
  apiUrl: string,
  query: Record<string, string>,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(pushUrl(apiUrl, query).replace('ws', 'http'), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: undefined });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
