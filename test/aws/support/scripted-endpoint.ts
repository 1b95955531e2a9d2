import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 standing in for an AWS endpoint: it records each request whole
 * and answers what the test's script says, including the failures no answer describes: a reset
 * connection, or silence until the caller gives up.
 */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Reply =
  | { status: number; headers?: Record<string, string>; body?: string }
  | 'reset'
  /** Read the request, never answer. */
  | 'silent';

export interface ScriptedEndpoint {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function scriptedEndpoint(
  reply: (request: SeenRequest, index: number) => Reply,
): Promise<ScriptedEndpoint> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(request);
      const answer = reply(request, seen.length - 1);
      if (answer === 'reset') req.socket.resetAndDestroy();
      else if (answer !== 'silent') res.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The SigV4 scope a request was signed for: `<day>/<region>/<service>/aws4_request`. */
export const signingScopeOf = (request: SeenRequest): string | undefined =>
  /Credential=[^/]+\/([^,]+),/.exec(String(request.headers.authorization ?? ''))?.[1];
