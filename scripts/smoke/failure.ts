/** How the smoke run says what went wrong: one line a person can act on. */
import { ApiError } from '../../client/index.ts';

/** A step's failure, said for a person: what was expected and what came. */
export class SmokeFailure extends Error {}

/** An error as one line: the API's status, code and request id when it is the API's. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const hint =
      err.status === 401 || err.status === 403
        ? ' (the key was refused: pass a key of this stage, `npm run admin -- create-key`)'
        : '';
    return `${err.status} ${err.code}: ${err.message}${hint}${err.requestId ? ` [request ${err.requestId}]` : ''}`;
  }
  if (err instanceof Error) {
    // fetch's own "fetch failed" says nothing; its cause (ECONNREFUSED, ENOTFOUND, a TLS error) does.
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}${cause}`;
  }
  return String(err);
}
