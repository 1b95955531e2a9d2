/**
 * At most `ACCOUNT_HANDSHAKE_LIMITS.perWindow` webhook handshakes started per account per window,
 * over all its agents (window-limit.ts), beside each agent's own lease and minute (verify-limit.ts):
 * agents are cheap to make, so the agent's limit alone did not bound what one key could POST.
 */
import { ACCOUNT_HANDSHAKE_LIMITS } from '../core/settings.ts';
import { ENTITY, handshakeLimitKey } from '../store/keys.ts';
import { takeWindowSlot } from './window-limit.ts';

export const takeAccountHandshakeSlot = (userId: string, now: () => number = Date.now): Promise<void> =>
  takeWindowSlot(
    {
      key: handshakeLimitKey(userId),
      entity: ENTITY.handshakeLimit,
      ...ACCOUNT_HANDSHAKE_LIMITS,
      refusal: `An account may start ${ACCOUNT_HANDSHAKE_LIMITS.perWindow} webhook verifications per ${ACCOUNT_HANDSHAKE_LIMITS.windowMs / 60_000} minutes over all its agents; try again later.`,
    },
    now,
  );
