/**
 * The life of a delivery record across attempts: ONE conditional UpdateItem per attempt, which
 * counts it, appends it to the history and sets the outcome. The condition is the attempt count
 * the writer read, so counts stay exact: a writer that loses (another copy of the message, or a
 * manual retry, recorded first) gets the current item back and writes again on top of it.
 *
 * There is no lease: two copies of one message can POST at the same time (receivers dedupe on
 * the event id, docs/webhooks.md). What keeps copies from multiplying is the schedule slot: a
 * scheduled attempt that finds its slot already taken by another copy records its POST as an
 * extra attempt and stops, so only one message carries the schedule on.
 */
import { nowIso } from '../core/time.ts';
import { conditionalUpdate } from '../store/conditional.ts';
import { keys } from '../store/keys.ts';
import { attemptLogKey, MAX_ATTEMPT_LOG, type AttemptEntry } from './attempt-log.ts';
import { deliveryFromItem, scheduledMade, statusPlacement, type DeliveryRecord, type DeliveryStatus } from './deliveries.ts';
import { delayAfter, retryDelays } from './schedule.ts';

export interface AttemptWrite {
  /** A manual retry, or a copy that lost its schedule slot: does not use up the schedule. */
  extra: boolean;
  /** The SQS message that made the attempt (kept as `carrier`). */
  messageId: string;
  ok: boolean;
  /** The short text kept as `last_error` (null on success). */
  lastError: string | null;
  entry: Omit<AttemptEntry, 'attempt'>;
}

export interface Recorded {
  record: DeliveryRecord;
  /** Set when the scheduled message should come back for another attempt: seconds until it. */
  retryInSeconds?: number;
  /** This attempt ended up as an extra one (its schedule slot was taken by another copy). */
  extra: boolean;
  /**
   * The slot was taken by this same SQS message, received twice at once: that other receipt
   * parks it for the next attempt, so this one must not delete it (SQS may honour either receipt).
   */
  takenBySameMessage?: boolean;
}

const MAX_WRITE_TRIES = 8;

interface NextState {
  status: DeliveryStatus;
  next_attempt_at: string | null;
  retryInSeconds?: number;
}

/** What a record becomes after one more attempt. */
export function nextState(current: DeliveryRecord, write: Pick<AttemptWrite, 'ok' | 'extra'>, nowMs: number): NextState {
  if (write.ok || current.status === 'succeeded') return { status: 'succeeded', next_attempt_at: null };
  const scheduleLeft = current.status === 'pending' && scheduledMade(current) < current.max_attempts;
  if (write.extra) return scheduleLeft ? { status: 'pending', next_attempt_at: current.next_attempt_at } : { status: 'failed', next_attempt_at: null };
  const made = scheduledMade(current) + 1;
  if (made >= current.max_attempts) return { status: 'failed', next_attempt_at: null };
  const retryInSeconds = delayAfter(made) ?? retryDelays().at(-1) ?? 0;
  return { status: 'pending', next_attempt_at: new Date(nowMs + retryInSeconds * 1000).toISOString(), retryInSeconds };
}

/** Records one POST that was made. Undefined only if the record is gone (expired). */
export async function recordAttempt(seen: DeliveryRecord, write: AttemptWrite, nowMs = Date.now()): Promise<Recorded | undefined> {
  let current = seen;
  let extra = write.extra;
  let takenBySameMessage = false;
  for (let tries = 0; tries < MAX_WRITE_TRIES; tries++) {
    const number = current.attempts + 1;
    const state = nextState(current, { ok: write.ok, extra }, nowMs);
    const entry: AttemptEntry = { attempt: number, ...write.entry };
    const logPath = current.attempt_log === undefined ? '#log' : '#log.#entry';
    const dropOldest = current.attempt_log !== undefined && number > MAX_ATTEMPT_LOG;
    const extraAttempts = (current.extra_attempts ?? 0) + (extra ? 1 : 0);
    const result = await conditionalUpdate({
      Key: keys.delivery(current.agent_id, current.id),
      ConditionExpression: 'attempts = :seen',
      UpdateExpression:
        `SET attempts = :n, extra_attempts = :extra, #status = :status, #index = :index, last_status_code = :code, last_error = :error, ` +
        `next_attempt_at = :next, updated_at = :now, carrier = :carrier, ${logPath} = :entry${dropOldest ? ' REMOVE #log.#oldest' : ''}`,
      ExpressionAttributeNames: {
        '#status': 'status',
        '#index': statusPlacement(current.agent_id, state.status).name,
        '#log': 'attempt_log',
        ...(current.attempt_log === undefined ? {} : { '#entry': attemptLogKey(number) }),
        ...(dropOldest ? { '#oldest': attemptLogKey(number - MAX_ATTEMPT_LOG) } : {}),
      },
      ExpressionAttributeValues: {
        ':seen': current.attempts,
        ':n': number,
        ':extra': extraAttempts,
        ':status': state.status,
        ':index': statusPlacement(current.agent_id, state.status).value,
        ':code': entry.status_code,
        ':error': write.lastError,
        ':next': state.next_attempt_at,
        ':now': nowIso(),
        ':carrier': write.messageId,
        ':entry': current.attempt_log === undefined ? { [attemptLogKey(number)]: entry } : entry,
      },
    });
    if (result.ok) {
      const record: DeliveryRecord = {
        ...current,
        attempts: number,
        extra_attempts: extraAttempts,
        status: state.status,
        last_status_code: entry.status_code,
        last_error: write.lastError,
        next_attempt_at: state.next_attempt_at,
        attempt_log: { ...current.attempt_log, [attemptLogKey(number)]: entry },
      };
      return { record, extra, ...(takenBySameMessage ? { takenBySameMessage } : {}), ...(state.retryInSeconds !== undefined ? { retryInSeconds: state.retryInSeconds } : {}) };
    }
    if (!result.current) return undefined;
    const latest = deliveryFromItem(result.current);
    // Another scheduled attempt took this slot: this POST was a duplicate's, and the schedule is theirs to carry on.
    if (!extra && scheduledMade(latest) > scheduledMade(current)) {
      extra = true;
      takenBySameMessage = latest.carrier === write.messageId;
    }
    current = latest;
  }
  throw new Error(`delivery ${seen.id}: the attempt count kept changing under ${MAX_WRITE_TRIES} writes`);
}

/** Ends a pending delivery without an attempt (webhook no longer enabled, event expired). */
export async function abandonDelivery(seen: DeliveryRecord, reason: string): Promise<void> {
  await conditionalUpdate({
    Key: keys.delivery(seen.agent_id, seen.id),
    ConditionExpression: 'attempts = :seen AND #status = :pending',
    UpdateExpression: 'SET #status = :failed, #index = :index, last_error = :reason, next_attempt_at = :null, updated_at = :now',
    ExpressionAttributeNames: { '#status': 'status', '#index': statusPlacement(seen.agent_id, 'failed').name },
    ExpressionAttributeValues: {
      ':seen': seen.attempts,
      ':pending': 'pending',
      ':failed': 'failed',
      ':index': statusPlacement(seen.agent_id, 'failed').value,
      ':reason': reason,
      ':null': null,
      ':now': nowIso(),
    },
  });
}

/**
 * A manual retry of a failed delivery: back to pending, so its one extra attempt decides the
 * outcome (a failure ends `failed` again: the schedule stays spent). Undefined when it is not failed.
 */
export async function reopenFailed(agentId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const now = nowIso();
  const result = await conditionalUpdate({
    Key: keys.delivery(agentId, deliveryId),
    ConditionExpression: '#status = :failed',
    UpdateExpression: 'SET #status = :pending, #index = :index, next_attempt_at = :now, updated_at = :now',
    ExpressionAttributeNames: { '#status': 'status', '#index': statusPlacement(agentId, 'pending').name },
    ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending', ':index': statusPlacement(agentId, 'pending').value, ':now': now },
    ReturnValues: 'ALL_NEW',
  });
  return result.ok && result.attributes ? deliveryFromItem(result.attributes) : undefined;
}
