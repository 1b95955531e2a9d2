/**
 * The first of an attempt's two writes, made BEFORE its POST: it takes the attempt's number, so no
 * POST is ever made without one (docs/events.md, "Delivery"). The second write, after the POST,
 * records what came back under that number (attempt-outcome.ts).
 *
 * - An extra attempt (a manual retry) adds one to the count with an atomic `SET attempts =
 *   attempts + 1`: no condition on the count, so any number of them at once never retry against
 *   each other, and the new count (returned by the write) is its number.
 * - A scheduled attempt takes the schedule's next slot, on the condition that the counts it read
 *   still hold: a copy of its message (or the same message received twice) that took the slot
 *   first wins, and the loser makes no POST. When only extra attempts moved the count meanwhile,
 *   it tries again on top of them; losing costs no POST, so giving up after MAX_TRIES simply
 *   leaves the message for later.
 */
import { InvariantError } from '../../core/errors.ts';
import { DELIVERY } from '../../core/settings.ts';
import { backoff } from '../../store/backoff.ts';
import { type DeliveryRecord, deliveryFromItem, scheduledMade } from './record.ts';
import { countExtraAttempt, takeScheduledSlot } from './store.ts';

export interface TakenAttempt {
  /** The record as the take left it: `attempts` counts this attempt. */
  record: DeliveryRecord;
  number: number;
  /** A manual retry: it does not use up the schedule. */
  extra: boolean;
}

export type Take =
  | { kind: 'taken'; attempt: TakenAttempt }
  /** Nothing to attempt: the record is gone, settled, or a copy of this message took the slot. */
  | { kind: 'none' }
  /** The same SQS message, received twice at once, took the slot under its other receipt: keep it, do not delete it. */
  | { kind: 'taken_by_same_message' };

const MAX_TRIES = 8;

/** A manual retry's attempt: always a new number (unless the record is gone, or succeeded and the retry is not forced). */
export async function takeExtraAttempt(seen: DeliveryRecord, messageId: string, force: boolean): Promise<Take> {
  const result = await countExtraAttempt(seen, messageId, force);
  if (!result.ok || !result.attributes) return { kind: 'none' };
  const record = deliveryFromItem(result.attributes);
  return { kind: 'taken', attempt: { record, number: record.attempts, extra: true } };
}

/**
 * The schedule's next attempt, if no copy of the message has taken it. It moves `next_attempt_at`
 * past the longest a worker may run: a copy that reads the record while this attempt is in flight
 * finds it not due and waits, instead of taking the next slot; the outcome sets the real next time.
 * If the worker dies, its message comes back after the visibility timeout, by then due.
 */
export async function takeScheduledAttempt(seen: DeliveryRecord, messageId: string, nowMs: number): Promise<Take> {
  const inFlightUntil = new Date(nowMs + DELIVERY.functionTimeoutSeconds * 1000).toISOString();
  let current = seen;
  for (let tries = 1; ; tries++) {
    const number = current.attempts + 1;
    const result = await takeScheduledSlot(current, number, inFlightUntil, messageId);
    if (result.ok && result.attributes)
      return { kind: 'taken', attempt: { record: deliveryFromItem(result.attributes), number, extra: false } };
    if (result.ok || !result.current) return { kind: 'none' };
    const latest = deliveryFromItem(result.current);
    if (latest.status !== 'pending' || scheduledMade(latest) >= latest.max_attempts) return { kind: 'none' };
    if (scheduledMade(latest) > scheduledMade(current))
      return latest.carrier === messageId ? { kind: 'taken_by_same_message' } : { kind: 'none' };
    // Only extra attempts moved the count: take the slot on top of them.
    if (tries >= MAX_TRIES)
      throw new InvariantError(
        `delivery ${seen.id}: manual attempts kept moving the count under ${MAX_TRIES} takes (no POST was made)`,
      );
    current = latest;
    await backoff(tries);
  }
}
