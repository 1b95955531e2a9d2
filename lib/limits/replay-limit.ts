/**
 * At most `REPLAY_LIMITS.perWindow` replays started per agent per window, across any number of
 * function instances (window-limit.ts: the verify limiter's window, without its lease).
 */
import { REPLAY_LIMITS } from '../core/settings.ts';
import { ENTITY, replayLimitKey } from '../store/keys.ts';
import { takeWindowSlot } from './window-limit.ts';

export const takeReplaySlot = (agentId: string, now: () => number = Date.now): Promise<void> =>
  takeWindowSlot(
    {
      key: replayLimitKey(agentId),
      entity: ENTITY.replayLimit,
      ...REPLAY_LIMITS,
      refusal: `An agent may start ${REPLAY_LIMITS.perWindow} replays per ${REPLAY_LIMITS.windowMs / 60_000} minutes; try again later.`,
    },
    now,
  );
