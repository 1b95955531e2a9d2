/**
 * How long a message held without an attempt waits (docs/events.md, "Tenants apart"): its
 * endpoint's circuit is open, or the endpoint is in doubt and its POST slots are taken
 * (endpoint-slots.ts). The wait doubles with each hold the message has had (`waits` on the
 * message, cleared by its next attempt), so a dead endpoint's backlog costs the workers a
 * receive per message less and less often instead of one every few seconds; and it is spread by
 * up to half again, so a backlog held until the same circuit time does not come back at once.
 */
import { DELIVERY } from '../../core/settings.ts';

/**
 * When a held message may come back: `atLeast` (seconds: an open circuit's time left) and at most
 * `atMost` (seconds: until the POST slots it waits for lapse; a slot is free by then whatever its
 * holder does, even a worker that crashed).
 */
export interface HoldWindow {
  atLeast: number;
  atMost?: number;
}

/** Seconds to wait: the message's own backoff, within the window. */
export function holdSeconds({ atLeast, atMost }: HoldWindow, waits = 0, random: () => number = Math.random): number {
  const backoff = Math.min(DELIVERY.holdBaseSeconds * 2 ** waits, DELIVERY.holdMaxSeconds);
  const spread = Math.ceil(Math.max(atLeast, backoff) * (1 + random() / 2));
  return atMost === undefined ? spread : Math.max(1, Math.min(spread, Math.ceil(atMost)));
}

/** `waits` of a message: absent, or the holds it has had (bounded: the backoff stops growing long before). */
export const isWaits = (value: unknown): boolean =>
  value === undefined || (Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 64);
