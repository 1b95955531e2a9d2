import type { IncomingMessage } from 'node:http';

/**
 * The request's URL, or undefined when its target does not parse. Node's HTTP parser lets through
 * absolute-form targets that WHATWG URL refuses (`GET http://[ HTTP/1.1`): `new URL` would throw
 * inside a request listener, and an unheard throw there ends the local runtime.
 */
export function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}
