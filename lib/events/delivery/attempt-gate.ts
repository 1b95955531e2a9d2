/**
 * What a delivery message goes through before its send, for webhooks (deliver-batch.ts) and AWS
 * destinations (destination-batch.ts) alike: whether it may make an attempt now, the event to send,
 * and the attempt's number (take-attempt.ts). Each step answers either "go on" or the message's outcome.
 */
import type { ServiceEvent } from '../feed/event.ts';
import { readEvent } from '../feed/reader.ts';
import { type DeliveryRecord, scheduledMade } from './record.ts';
import { abandonDelivery } from './store.ts';
import { type TakenAttempt, takeExtraAttempt, takeScheduledAttempt } from './take-attempt.ts';

/**
 * What becomes of a received message: `done` (deleted), `later` (its next attempt sent as a delayed
 * copy, queue.ts `sendLater`, then deleted), `keep` (left in flight until the queue's visibility
 * timeout brings it back), `poison` (left for the DLQ).
 */
export type Outcome =
  | { kind: 'done' }
  /** `held`: no attempt was made (hold.ts), so the copy counts the hold. */
  | { kind: 'later'; seconds: number; held?: true }
  | { kind: 'keep' }
  | { kind: 'poison' };

const DONE: Outcome = { kind: 'done' };

/** A duplicate copy that arrives this much before its attempt is due waits for it instead. */
const EARLY_TOLERANCE_MS = 1000;

interface Flags {
  manual?: true;
  force?: true;
}

/** undefined when the message may attempt now; else its outcome (nothing to do, or not due yet). */
export function notNow(message: Flags, delivery: DeliveryRecord, nowMs: number): Outcome | undefined {
  if (message.manual) {
    // Delivered since the retry was asked for; a forced resend goes anyway.
    return delivery.status === 'succeeded' && !message.force ? DONE : undefined;
  }
  if (delivery.status !== 'pending' || scheduledMade(delivery) >= delivery.max_attempts) return DONE;
  const dueInMs = Date.parse(delivery.next_attempt_at ?? '') - nowMs;
  // A copy of the message that arrives before the attempt is due (the relay sent it twice) waits for it.
  return dueInMs > EARLY_TOLERANCE_MS ? { kind: 'later', seconds: Math.ceil(dueInMs / 1000) } : undefined;
}

/** The event the record carries (or, for old records, the feed's); undefined after ending the delivery when it expired. */
export async function eventToSend(delivery: DeliveryRecord): Promise<ServiceEvent | undefined> {
  const event = delivery.event ?? (await readEvent(delivery.agent_id, delivery.event_id));
  if (!event) await abandonDelivery(delivery, 'event expired');
  return event;
}

/** The attempt's number, taken before the send; or the message's outcome when none may be made. */
export async function takeAttempt(
  message: Flags,
  delivery: DeliveryRecord,
  messageId: string,
  nowMs: number,
): Promise<{ taken: TakenAttempt } | { outcome: Outcome }> {
  const take = message.manual
    ? await takeExtraAttempt(delivery, messageId, message.force === true)
    : await takeScheduledAttempt(delivery, messageId, nowMs);
  if (take.kind === 'none') return { outcome: DONE };
  // The same message under its other receipt is making this attempt; that receipt schedules the next
  // one or ends it. Kept (not deleted, no copy sent), so a worker dying mid-attempt under the other
  // receipt loses nothing: the message comes back after the visibility timeout and finds the attempt
  // recorded (and sends its next one later) or settled.
  if (take.kind === 'taken_by_same_message') return { outcome: { kind: 'keep' } };
  return { taken: take.attempt };
}
