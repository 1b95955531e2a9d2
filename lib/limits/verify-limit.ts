/**
 * The verify limiter of one agent: at most one handshake in flight and at most
 * `VERIFY_LIMITS.perWindow` started per window, across any number of function instances. The
 * state is one item (`keys.verifyLimit`) changed only by conditional writes, so two instances can
 * never both pass: the lease (`lease_until`, `lease_token`) and the window (`window_start`,
 * `window_count`) are checked and taken in the same UpdateItem.
 *
 * Clocks: every time in the item is the writing instance's clock. With two clocks at most
 * MAX_CLOCK_SKEW_MS apart, a lease lasts the verify function's timeout plus that bound, so a live
 * handshake keeps it; a window may look up to that bound shorter to a fast clock, so the rate holds
 * as `perWindow` per (window − bound). A value further in the future than any in-bound clock could
 * have written (FUTURE_TOLERANCE_MS: a broken clock) counts as stale, so it can never lock an agent out.
 */
import { randomUUID } from 'node:crypto';
import { rateLimited } from '../core/errors.ts';
import { FUTURE_TOLERANCE_MS, VERIFY_LIMITS } from '../core/settings.ts';
import { log } from '../observability/log.ts';
import { releaseVerifyLease, takeVerifyLeaseInWindow, takeVerifyLeaseNewWindow } from './store.ts';

export interface HandshakeLease {
  /** Frees the agent for the next handshake; never throws (the lease lapses on its own anyway). */
  release(): Promise<void>;
}

export interface LimiterOptions {
  /** This instance's clock (ms since the epoch); tests inject skewed ones. */
  now?: () => number;
}

const ATTEMPTS = 3;

export async function startHandshake(agentId: string, options: LimiterOptions = {}): Promise<HandshakeLease> {
  const now = options.now ?? Date.now;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const t = now();
    const token = randomUUID();
    // The common case first: the current window has room.
    const sameWindow = await takeVerifyLeaseInWindow(agentId, t, token);
    if (sameWindow.ok) return leaseOf(agentId, token);
    // No window yet, or the last one is over (or was written by a clock beyond the bound): open one.
    const newWindow = await takeVerifyLeaseNewWindow(agentId, t, token);
    if (newWindow.ok) return leaseOf(agentId, token);

    const refusal = whyRefused(newWindow.current, t);
    if (refusal) throw refusal;
    // Neither refusal holds any more: another instance moved the item between our two writes.
  }
  throw rateLimited('Too many verifications of this agent at once; try again in a moment.', 1);
}

type Current = Record<string, unknown> | undefined;

/** The 429 the stored state calls for right now, or undefined when it no longer refuses anything. */
function whyRefused(current: Current, t: number) {
  const leaseUntil = current?.['lease_until'];
  const windowStart = current?.['window_start'];
  const windowCount = current?.['window_count'];
  const leaseHeld =
    typeof leaseUntil === 'number' && leaseUntil > t && leaseUntil <= t + VERIFY_LIMITS.leaseMs + FUTURE_TOLERANCE_MS;
  const windowEnd = typeof windowStart === 'number' ? windowStart + VERIFY_LIMITS.windowMs : 0;
  const windowFull =
    typeof windowStart === 'number' &&
    windowStart <= t + FUTURE_TOLERANCE_MS &&
    windowEnd > t &&
    typeof windowCount === 'number' &&
    windowCount >= VERIFY_LIMITS.perWindow;
  if (windowFull) {
    return rateLimited(
      `This agent's webhook may be verified ${VERIFY_LIMITS.perWindow} times per ${VERIFY_LIMITS.windowMs / 1000} s; try again later.`,
      (windowEnd - t) / 1000,
    );
  }
  // A handshake ends within its 10 s deadline, usually far sooner: a short wait is the useful hint.
  if (leaseHeld)
    return rateLimited("A verification of this agent's webhook is already running; try again when it has finished.", 1);
  return undefined;
}

function leaseOf(agentId: string, token: string): HandshakeLease {
  return {
    async release() {
      // A failed condition means the lease lapsed and the next handshake took it; a store error
      // leaves it to lapse by itself. Either way the verify answer must not fail for it.
      await releaseVerifyLease(agentId, token).catch((err: Error) =>
        log.warn('verify lease not released', { agentId, error: err.name }),
      );
    },
  };
}
