/**
 * A batch of the destinations' queue (destination-queue.ts): verification messages
 * (lib/destinations/verification.ts) and delivery attempts to customers' SQS queues and EventBridge
 * buses. An attempt runs as a webhook attempt does (deliver-batch.ts): the same re-check, the same
 * two writes around the send (take-attempt.ts, attempt-outcome.ts), the same retry schedule and
 * history; the send is lib/destinations/send.ts, and the health that disables a destination whose
 * attempts have all failed for WEBHOOK_AUTO_DISABLE_AFTER_SECONDS is kept on the destination item.
 */
import { liveAgent } from '../../agents/store.ts';
import { setting } from '../../core/environment.ts';
import { atPinnedVersion } from '../../core/event-versions.ts';
import { nowIso } from '../../core/time.ts';
import { parseDestinationArn } from '../../destinations/arn.ts';
import type { DestinationRecord } from '../../destinations/model.ts';
import { sendToDestination } from '../../destinations/send.ts';
import { updateDestination } from '../../destinations/store.ts';
import { sendVerification } from '../../destinations/verification.ts';
import { errorFields, log } from '../../observability/log.ts';
import { keyString } from '../../store/batch.ts';
import * as keys from '../../store/key-builders.ts';
import { destinationKeys, type Key } from '../../store/keys.ts';
import { TEST_EVENT_TYPE } from '../feed/agent-gate.ts';
import { eventToSend, notNow, type Outcome, takeAttempt } from './attempt-gate.ts';
import type { AttemptEntry } from './attempt-history.ts';
import { recordOutcome } from './attempt-outcome.ts';
import { deliveryRequest } from './delivery-request.ts';
import { type DestinationMessage, parseDestinationMessage, sendLaterForDestination } from './destination-queue.ts';
import { hopSecondsLeft, type LaterSend, type ReceivedMessage } from './queue.ts';
import { RATE_WAIT_SECONDS, RateAllowance, type RateRecord } from './rate-limit.ts';
import { type DeliveryRecord, deliveryFromItem } from './record.ts';
import { abandonDelivery, readDestinationsAndDeliveries } from './store.ts';

export interface DestinationBatchOptions {
  /** The clock (ms); tests move it to reach the auto-disable threshold. */
  now?: () => number;
}

const accepts = (d: DestinationRecord | undefined, type: string): d is DestinationRecord =>
  d?.status === 'ENABLED' && (type === TEST_EVENT_TYPE || (d.events as string[]).includes(type));

export async function deliverDestinationBatch(
  records: readonly ReceivedMessage[],
  options: DestinationBatchOptions = {},
): Promise<string[]> {
  const clock = options.now ?? Date.now;
  const messages = records.map((r) => parseDestinationMessage(r.body));
  const valid = messages.filter((m) => m !== undefined);
  const found =
    valid.length > 0
      ? await readDestinationsAndDeliveries(
          valid.flatMap((m) => [
            destinationKeys.destination(m.agent_id, m.destination_id),
            keys.agent(m.agent_id),
            ...('delivery_id' in m ? [keys.delivery(m.agent_id, m.delivery_id)] : []),
          ]),
        )
      : new Map<string, Record<string, unknown>>();
  // A deleted agent's destinations are no destinations: what was queued before the deletion is not
  // sent (abandoned, as for a disabled destination), as a deleted agent's webhook gets nothing more.
  const destinationOf = (m: DestinationMessage) =>
    liveAgent(found.get(keyString(keys.agent(m.agent_id))))
      ? (found.get(keyString(destinationKeys.destination(m.agent_id, m.destination_id))) as
          | DestinationRecord
          | undefined)
      : undefined;
  const health = new Map<string, { destination: DestinationRecord; ok: boolean; failed: boolean }>();
  // The owner's rate limit (rate-limit.ts): the batch's slots per destination, claimed at once.
  const rate = new RateAllowance();
  const wants = new Map<string, { item: Key; record: RateRecord; count: number }>();
  for (const m of valid) {
    const destination = 'delivery_id' in m && !m.manual ? destinationOf(m) : undefined;
    if (!destination?.rate_limit) continue;
    const want = wants.get(destination.id) ?? {
      item: destinationKeys.destination(m.agent_id, destination.id),
      record: destination as RateRecord,
      count: 0,
    };
    want.count += 1;
    wants.set(destination.id, want);
  }
  await rate.claim(wants, clock());

  const later = new Map<number, LaterSend<Extract<DestinationMessage, { delivery_id: string }>>>();
  const keep = await Promise.all(
    records.map(async (record, i): Promise<boolean> => {
      const message = messages[i];
      if (!message) {
        log.warn('deliver to destinations: unreadable message left for the DLQ', { messageId: record.messageId });
        return true;
      }
      try {
        const destination = destinationOf(message);
        if (!('delivery_id' in message)) {
          if (destination) await sendVerification(destination, message.requested_at, clock());
          return false;
        }
        const hop = hopSecondsLeft(message, clock());
        if (hop !== undefined) {
          later.set(i, { message, seconds: hop });
          return false;
        }
        const item = found.get(keyString(keys.delivery(message.agent_id, message.delivery_id)));
        const { outcome, attempted } = await attempt(
          record.messageId,
          message,
          item ? deliveryFromItem(item) : undefined,
          destination,
          clock(),
          () => message.manual === true || rate.take(message.destination_id),
        );
        if (attempted !== undefined && destination) {
          const entry = health.get(destination.id) ?? { destination, ok: false, failed: false };
          if (attempted) entry.ok = true;
          else entry.failed = true;
          health.set(destination.id, entry);
        }
        // A later attempt goes as a delayed copy (queue.ts, `sendLater`, after the batch); this one is done.
        if (outcome.kind === 'later') later.set(i, { message, seconds: outcome.seconds });
        return outcome.kind === 'poison' || outcome.kind === 'keep';
      } catch (err) {
        log.error('deliver to destinations: message failed', { messageId: record.messageId, ...errorFields(err) });
        return true;
      }
    }),
  );
  await Promise.all(
    [...health.values()].map((h) =>
      noteHealth(h.destination, h.ok, h.failed, clock()).catch((err: unknown) =>
        log.error('deliver to destinations: health not recorded', {
          destinationId: h.destination.id,
          ...errorFields(err),
        }),
      ),
    ),
  );
  // A copy not sent keeps its received message, which comes back after the visibility timeout.
  const at = [...later.keys()];
  for (const j of await sendLaterForDestination([...later.values()], clock())) keep[at[j]!] = true;
  return records.filter((_, i) => keep[i]).map((r) => r.messageId);
}

/** One delivery message; `attempted` is whether the send succeeded, when one was made. */
async function attempt(
  messageId: string,
  message: Extract<DestinationMessage, { delivery_id: string }>,
  delivery: DeliveryRecord | undefined,
  destination: DestinationRecord | undefined,
  nowMs: number,
  /** The owner's rate limit: whether this message has a slot now. */
  slot: () => boolean = () => true,
): Promise<{ outcome: Outcome; attempted?: boolean }> {
  const done = { outcome: { kind: 'done' } } as const;
  if (!delivery || delivery.destination_id !== message.destination_id) return done;
  const waiting = notNow(message, delivery, nowMs);
  if (waiting) return { outcome: waiting };
  if (!accepts(destination, delivery.event_type)) {
    await abandonDelivery(
      delivery,
      'agent deleted, or destination not enabled or not subscribed to this event type, when the attempt was due',
    );
    return done;
  }
  const made = await eventToSend(delivery);
  if (!made) return done;
  // Shaped at each attempt to the destination's pins as they are now (docs/webhooks.md, "Schema versions and pins").
  const event = atPinnedVersion(made, destination.schema_versions);
  const arn = parseDestinationArn(destination.arn, undefined);
  if (!arn.ok) {
    await abandonDelivery(delivery, `destination ARN no longer valid: ${arn.reason}`);
    return done;
  }
  // Over the owner's rate: waits its turn, no attempt taken.
  if (!slot()) return { outcome: { kind: 'later', seconds: RATE_WAIT_SECONDS } };
  const take = await takeAttempt(message, delivery, messageId, nowMs);
  if ('outcome' in take) return take;
  // The causing trace travels as the webhook's does: a `traceparent` with a new span id per attempt (send.ts says where).
  const { body, headers } = deliveryRequest(
    event,
    destination.signing_secret,
    new Date(),
    [],
    delivery.trace ? { trace: delivery.trace } : {},
  );
  const { 'Content-Type': _json, ...signed } = headers;
  const started = Date.now();
  const result = await sendToDestination(arn.value, destination.owner_id, {
    id: event.id,
    type: event.type,
    body,
    headers: signed,
    groupId: event.agent_id,
  });
  const durationMs = Date.now() - started;
  const entry: Omit<AttemptEntry, 'attempt'> = {
    started_at: new Date(started).toISOString(),
    duration_ms: Math.max(0, Math.round(durationMs)),
    status_code: result.statusCode,
    error: result.ok ? null : result.kind === 'network' ? 'network' : result.kind,
    response_body: (result.ok ? result.receipt : result.message).slice(0, 1024),
  };
  const lastError = result.ok
    ? null
    : `${destination.kind === 'sqs' ? 'SQS' : 'EventBridge'} refused: ${result.message}`;
  const recorded = await recordOutcome(take.taken, { ok: result.ok, lastError, entry }, nowMs);
  log.info('destination delivery attempt', {
    deliveryId: delivery.id,
    destinationId: destination.id,
    eventId: event.id,
    attempt: take.taken.number,
    error: lastError ?? undefined,
    ms: durationMs,
    outcome: recorded ? recorded.record.status : 'record expired',
  });
  const retryIn = message.manual ? undefined : recorded?.retryInSeconds;
  return {
    outcome: retryIn === undefined ? { kind: 'done' } : { kind: 'later', seconds: retryIn },
    attempted: result.ok,
  };
}

/** As a webhook's health (webhook-health.ts), on the destination item: at most one write per destination and batch. */
async function noteHealth(
  destination: DestinationRecord,
  anyOk: boolean,
  anyFailed: boolean,
  nowMs: number,
): Promise<void> {
  if (anyOk) {
    if (destination.failing_since === undefined) return;
    await updateDestination(destination.agent_id, destination.id, {
      set: { updated_at: nowIso() },
      remove: ['failing_since'],
      condition: 'failing_since = :since',
      values: { ':since': destination.failing_since },
    });
    return;
  }
  if (!anyFailed || destination.status !== 'ENABLED') return;
  if (destination.failing_since === undefined) {
    await updateDestination(destination.agent_id, destination.id, {
      set: { failing_since: nowMs },
      condition: '#st = :enabled AND attribute_not_exists(failing_since)',
      values: { ':enabled': 'ENABLED' },
      names: { '#st': 'status' },
    });
    return;
  }
  if (nowMs - destination.failing_since < setting('WEBHOOK_AUTO_DISABLE_AFTER_SECONDS') * 1000) return;
  const since = new Date(destination.failing_since).toISOString();
  const disabled = await updateDestination(destination.agent_id, destination.id, {
    set: {
      status: 'DISABLED',
      status_reason: `Every delivery attempt failed since ${since}; the destination was disabled automatically. Verify it again (POST …/verify) to resume deliveries.`,
      updated_at: nowIso(),
    },
    remove: ['failing_since'],
    condition: '#st = :enabled AND failing_since = :since',
    values: { ':enabled': 'ENABLED', ':since': destination.failing_since },
    names: { '#st': 'status' },
  });
  if (disabled.ok)
    log.warn('destination disabled after failing deliveries', { destinationId: destination.id, failingSince: since });
}
