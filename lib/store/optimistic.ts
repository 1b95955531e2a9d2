import { backoff, stillContended } from './backoff.ts';

/**
 * Read, decide, write on the condition that what was read still holds; if it no longer does,
 * pause a random moment and start over. Used where the write depends on the state read (list
 * partitions, the current version, a day rollover), never for plain counters (those use ADD).
 */
export const RETRY = Symbol('retry');
const MAX_ATTEMPTS = 12;

export async function optimistic<T>(run: (attempt: number) => Promise<T | typeof RETRY>): Promise<T> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const result = await run(attempt);
    if (result !== RETRY) return result;
    await backoff(attempt, 400);
  }
  throw stillContended();
}
