/**
 * How the portal's buttons and forms run: an action says how it went in the status line once what
 * it changed is redrawn, and a refused token (the link expired or was revoked) ends the session.
 */
import { ApiError } from '../../client/errors.ts';
import { problem } from '../shared/api.ts';
import { announce, byId, h, show } from '../shared/dom.ts';

export type Refresh = () => Promise<void> | void;

/** A refused token ends the session: the link expired or was revoked. */
export function refused(error: unknown): void {
  if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
    sessionStorage.removeItem('portal.session');
    show(
      byId('main'),
      h(
        'p',
        { class: 'notice notice-error', id: 'refused' },
        'This portal link has expired or was revoked. Ask for a new link.',
      ),
    );
  } else announce(problem(error), 'error');
}

/** Runs an action of a button or form, says how it went, and refreshes what it changed. */
export async function act(what: () => Promise<string>, ...refresh: Refresh[]): Promise<void> {
  try {
    const said = await what();
    for (const r of refresh) await r();
    // Said once the page shows the result, so the status line never runs ahead of what is drawn.
    announce(said);
  } catch (error) {
    refused(error);
  }
}
