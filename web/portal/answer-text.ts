import type { Delivery } from '../../client/types/index.ts';

/** A delivery's last answer in words: `HTTP 500`, the error kind, or a dash before any attempt. */
export const lastAnswer = (d: Pick<Delivery, 'last_status_code' | 'last_error'>): string =>
  d.last_status_code === null
    ? (d.last_error ?? '—')
    : `HTTP ${d.last_status_code}${d.last_error ? ` (${d.last_error})` : ''}`;

/** Newest first, by when each delivery was made (a replay is made when it is replayed). */
export const newestFirst = <T extends { created_at: string }>(list: readonly T[]): T[] =>
  [...list].sort((a, b) => b.created_at.localeCompare(a.created_at));
