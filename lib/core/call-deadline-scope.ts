/**
 * The deadline the code running now must finish its AWS calls by (epoch ms), if any: the HTTP stack
 * sets it per route (lib/store/call-deadline.ts `withCallDeadline`), the SDK clients' request
 * handlers and the hand-signed calls (lib/aws/signed-request.ts) both read it here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const callDeadlines = new AsyncLocalStorage<number>();

/** The deadline of the code running now; undefined outside any. */
export const currentCallDeadline = (): number | undefined => callDeadlines.getStore();
