import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Script = (req: SeenRequest, res: ServerResponse, attempt: number) => void;

/**
 * A real HTTP server on 127.0.0.1 that answers by a script, for what the local API cannot be made
 * to do on purpose (a 503, a hang, a dropped stream). Records every request it gets.
 */
export async function startScriptedServer(): Promise<{
  url: string;
  requests: SeenRequest[];
  answer(script: Script): void;
}> {
  const requests: SeenRequest[] = [];
  let script: Script = (_req, res) => res.writeHead(500).end();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      script(seen, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer(next) {
      requests.length = 0;
      script = next;
    },
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
