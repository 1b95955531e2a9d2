/**
 * A GET answer that clients and shared caches may keep (`Cache-Control: public, max-age`), with a
 * strong `ETag` of its JSON, and 304 Not Modified, without a body, to a request whose
 * `If-None-Match` names it: a receiver that revalidates pays the route's read but downloads nothing.
 */
import { createHash } from 'node:crypto';
import type { HttpResult } from './responses.ts';

/** The entity tag of an answer body: its JSON as the stack serializes it, hashed. */
export const etagOf = (body: unknown): string =>
  `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;

/** RFC 9110 13.1.2: `*`, or a list of tags compared weakly (a `W/` prefix does not matter). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

export function cacheableOk(
  body: unknown,
  requestHeaders: Readonly<Record<string, string>>,
  maxAgeSeconds: number,
): HttpResult {
  const etag = etagOf(body);
  const headers = { 'cache-control': `public, max-age=${maxAgeSeconds}`, etag };
  return ifNoneMatchHits(requestHeaders['if-none-match'], etag)
    ? { status: 304, headers }
    : { status: 200, body, headers };
}
