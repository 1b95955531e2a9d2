/**
 * The second of an attempt's two writes, after its POST: what came back, under the number the
 * first write took before the POST (take-attempt.ts). Its history entry's key is that number, so
 * it needs no condition on the count and never retries against other attempts; attempts of one
 * delivery can finish in any order.
 *
 * The outcome's effect on the record:
 * - a success makes it `succeeded` (for good: a later failure adds its entry and `last_*`, never
 *   the status back);
 * - a failed scheduled attempt sets the next due time, or `failed` when the schedule is spent;
 * - a failed extra attempt changes the status only when no scheduled attempt is left (a reopened
 *   failed delivery, docs/webhooks.md "Manual retry"); it never moves `next_attempt_at`, which
 *   belongs to the message that carries the schedule.
 * The history keeps the newest MAX_ATTEMPT_LOG entries: attempt n drops entry n − 50, and an entry
 * that finishes after the count has gone 50 past it is not written (its slot was already dropped).
 */
import { InvariantError } from '../../core/errors.ts';
import { type AttemptEntry, attemptLogKey, MAX_ATTEMPT_LOG } from './attempt-history.ts';
import { type DeliveryRecord, type DeliveryStatus, deliveryFromItem, scheduledMade } from './record.ts';
import { delayAfter, retryDelays } from './retry-schedule.ts';
import { writeOutcome } from './store.ts';
import type { TakenAttempt } from './take-attempt.ts';

export interface AttemptOutcome {
  ok: boolean;
  /** The short text kept as `last_error` (null on success). */
  lastError: string | null;
  entry: Omit<AttemptEntry, 'attempt'>;
  /** The endpoint's `Retry-After` (retry-after.ts): the next scheduled attempt waits at least this long. */
  notBeforeSeconds?: number;
}

export interface Recorded {
  /** The record as the take saw it, with this outcome applied. */
  record: DeliveryRecord;
  /** Set when the scheduled message should come back for another attempt: seconds until it. */
  retryInSeconds?: number;
}

interface NextState {
  status: DeliveryStatus;
  next_attempt_at: string | null;
  retryInSeconds?: number;
}

/** The status change an outcome makes, judged on the record as the take left it; undefined = none. */
export function nextState(
  taken: TakenAttempt,
  ok: boolean,
  nowMs: number,
  notBeforeSeconds = 0,
): NextState | undefined {
  const { record } = taken;
  if (ok) return { status: 'succeeded', next_attempt_at: null };
  if (record.status === 'succeeded') return undefined;
  // The take counted this attempt already.
  const made = scheduledMade(record);
  if (taken.extra)
    return record.status === 'pending' && made < record.max_attempts
      ? undefined
      : { status: 'failed', next_attempt_at: null };
  if (made >= record.max_attempts) return { status: 'failed', next_attempt_at: null };
  const retryInSeconds = Math.max(delayAfter(made) ?? retryDelays().at(-1) ?? 0, notBeforeSeconds);
  return { status: 'pending', next_attempt_at: new Date(nowMs + retryInSeconds * 1000).toISOString(), retryInSeconds };
}

/**
 * Records the answer of a POST under its taken number. Undefined only if the record is gone
 * (expired). At most three writes: each failed condition (the delivery succeeded meanwhile, the
 * count went 50 past this entry) only ever turns from true to false, and the next write drops it.
 */
export async function recordOutcome(
  taken: TakenAttempt,
  outcome: AttemptOutcome,
  nowMs = Date.now(),
): Promise<Recorded | undefined> {
  const { record: seen, number } = taken;
  const entry: AttemptEntry = { attempt: number, ...outcome.entry };
  let state = nextState(taken, outcome.ok, nowMs, outcome.notBeforeSeconds);
  let withEntry = true;
  for (;;) {
    // A failure must not take the status back from a success that landed meanwhile.
    const guardStatus = state !== undefined && !outcome.ok;
    const result = await writeOutcome(seen, {
      number,
      entry,
      lastError: outcome.lastError,
      state,
      guardStatus,
      withEntry,
    });
    if (result.ok) {
      const record: DeliveryRecord = {
        ...seen,
        ...(state ? { status: state.status, next_attempt_at: state.next_attempt_at } : {}),
        last_status_code: entry.status_code,
        last_error: outcome.lastError,
        attempt_log: { ...seen.attempt_log, ...(withEntry ? { [attemptLogKey(number)]: entry } : {}) },
      };
      return { record, ...(state?.retryInSeconds !== undefined ? { retryInSeconds: state.retryInSeconds } : {}) };
    }
    if (!result.current) return undefined;
    const latest = deliveryFromItem(result.current);
    const succeededMeanwhile = guardStatus && latest.status === 'succeeded';
    const pastWindow = withEntry && latest.attempts >= number + MAX_ATTEMPT_LOG;
    if (!succeededMeanwhile && !pastWindow)
      throw new InvariantError(`delivery ${seen.id}: attempt ${number} refused for no known reason`);
    if (succeededMeanwhile) state = undefined;
    if (pastWindow) withEntry = false;
  }
}
