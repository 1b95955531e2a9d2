/**
 * A batch of delivery messages: one BatchGetItem (strongly consistent) for every agent and
 * delivery record the batch names, then per message: re-check the webhook (it may have been
 * disabled or unsubscribed since the relay ran), take the attempt's number (take-attempt.ts),
 * sign, POST, and record the answer under that number (attempt-outcome.ts). The retry schedule is
 * carried by the record and by a delayed copy of the message (queue.ts, `sendLater`): a failed or
 * held attempt sends the next one later and lets the received copy go, so nothing waits in flight.
 */
import type { AgentRecord } from '../../agents/model.ts';
import { atPinnedVersion } from '../../core/event-versions.ts';
import { type OutboundResult, postJson } from '../../net/outbound.ts';
import { errorFields, log } from '../../observability/log.ts';
import { failureKindOf, recordDeliveryAttempt } from '../../observability/metrics.ts';
import { keyString } from '../../store/batch.ts';
import * as keys from '../../store/key-builders.ts';
import type { Key } from '../../store/keys.ts';
import { customHeaderValues } from '../../webhooks/custom-headers.ts';
import { signingSecrets } from '../../webhooks/rotation.ts';
import { ed25519SigningKeys } from '../../webhooks/signing-keys.ts';
import { acceptsDelivery } from '../feed/agent-gate.ts';
import { announceSafely, announceWebhookFailing } from '../feed/operational.ts';
import { eventToSend, notNow, type Outcome, takeAttempt } from './attempt-gate.ts';
import { attemptEntry } from './attempt-history.ts';
import { recordOutcome } from './attempt-outcome.ts';
import {
  type CircuitOutcome,
  type CircuitRecord,
  circuitGate,
  type Gate,
  noteCircuit,
  PROBE_WINDOW_MS,
} from './circuit.ts';
import { deliveryRequest } from './delivery-request.ts';
import { EndpointSlots, noteProven, POST_SLOT_LEASE_MS, type ProvenRecord, type SlotRecord } from './endpoint-slots.ts';
import { holdsNow, rememberedHold } from './held-endpoints.ts';
import { type HoldWindow, holdSeconds } from './hold.ts';
import {
  type DeliveryMessage,
  hopSecondsLeft,
  parseDeliveryMessage,
  type ReceivedMessage,
  sendLaterAll,
} from './queue.ts';
import { RATE_WAIT_SECONDS, RateAllowance, type RateRecord } from './rate-limit.ts';
import { type DeliveryRecord, deliveryFromItem } from './record.ts';
import { type Backpressure, backpressureOf } from './retry-after.ts';
import { type ReverifyRecord, reverify } from './reverify.ts';
import { abandonDelivery, readAgentsAndDeliveries } from './store.ts';
import { type AgentAttempts, disableGoneWebhook, type HealthRecord, noteAttempts } from './webhook-health.ts';

export type { Outcome } from './attempt-gate.ts';
// Its own module so the destinations' worker signs the same request without this one's HTTP client.
export { deliveryRequest } from './delivery-request.ts';

export interface DeliverOptions {
  /** The clock (ms); tests move it to reach the auto-disable threshold. */
  now?: () => number;
}

/** `last_error` of the record: a sentence, where the attempt history has the short kind. */
export function lastErrorOf(result: OutboundResult): string | null {
  switch (result.kind) {
    case 'response':
      return result.status >= 200 && result.status < 300 ? null : `endpoint answered HTTP ${result.status}`;
    case 'timeout':
      return 'no answer within 10 seconds';
    case 'blocked':
      return `URL refused: ${result.reason}`;
    case 'network_error':
      return `network error: ${result.message}`;
  }
}

interface Loaded {
  agents: Map<string, AgentRecord & HealthRecord & CircuitRecord & SlotRecord>;
  deliveries: Map<string, DeliveryRecord>;
  /** Agents whose messages (but manual retries) wait without an attempt, and how long they may wait. */
  held: Map<string, HoldWindow>;
  /** Delivery ids whose records were not read: their agent holds every message (held-endpoints.ts). */
  unread: Set<string>;
}

/**
 * The batch's agent items and delivery records in one strongly consistent read, but for the
 * messages of endpoints this worker last read holding every message (held-endpoints.ts): their
 * records are read only if the agent item read with the batch says they hold no longer, and the
 * agent item of an open circuit not at all. Every message of an endpoint that holds (but a manual
 * retry) waits without an attempt, in the window `held` gives its agent.
 */
async function loadBatch(messages: readonly DeliveryMessage[], nowMs: number): Promise<Loaded> {
  const remembered = new Map<string, { window: HoldWindow; stands: boolean }>();
  for (const m of messages) {
    const hold = rememberedHold(m.agent_id, nowMs);
    if (hold) remembered.set(m.agent_id, hold);
  }
  // A manual retry goes whatever holds the others: its agent and records are read.
  for (const m of messages) if (m.manual) remembered.delete(m.agent_id);
  const hinted = (m: DeliveryMessage) => remembered.has(m.agent_id);
  const agentIds = [...new Set(messages.map((m) => m.agent_id))].filter((id) => !remembered.get(id)?.stands);
  const deliveryKey = (m: DeliveryMessage) => keys.delivery(m.agent_id, m.delivery_id);
  const deliveryKeys = messages.filter((m) => !hinted(m)).map(deliveryKey);
  const found =
    agentIds.length + deliveryKeys.length > 0 ? await readAgentsAndDeliveries(agentIds, deliveryKeys) : new Map();
  const agents = new Map<string, AgentRecord & HealthRecord & CircuitRecord & SlotRecord>();
  for (const id of agentIds) {
    const agent = found.get(keyString(keys.agent(id)));
    if (agent) agents.set(id, agent as unknown as AgentRecord & HealthRecord & CircuitRecord & SlotRecord);
  }
  const held = new Map<string, HoldWindow>();
  for (const [id, hold] of remembered) if (hold.stands) held.set(id, hold.window);
  for (const agent of agents.values()) {
    const window = holdsNow(agent, nowMs);
    if (window) held.set(agent.id, window);
  }
  const stale = messages.filter((m) => hinted(m) && !held.has(m.agent_id));
  if (stale.length > 0)
    for (const [key, item] of await readAgentsAndDeliveries([], stale.map(deliveryKey))) found.set(key, item);
  const deliveries = new Map<string, DeliveryRecord>();
  for (const m of messages) {
    const delivery = found.get(keyString(deliveryKey(m)));
    if (delivery) deliveries.set(m.delivery_id, deliveryFromItem(delivery));
  }
  const unread = new Set(messages.filter((m) => hinted(m) && held.has(m.agent_id)).map((m) => m.delivery_id));
  return { agents, deliveries, held, unread };
}

/**
 * A message of an endpoint that holds every message: ended if its record was read and says so
 * (gone, settled, or not yet due), else held without an attempt.
 */
function heldOutcome(message: DeliveryMessage, loaded: Loaded, window: HoldWindow, nowMs: number): Outcome {
  const delivery = loaded.deliveries.get(message.delivery_id);
  if (!delivery) return loaded.unread.has(message.delivery_id) ? held(window, message) : { kind: 'done' };
  return notNow(message, delivery, nowMs) ?? held(window, message);
}

const held = (window: HoldWindow, message: DeliveryMessage): Outcome => ({
  kind: 'later',
  seconds: holdSeconds(window, message.waits),
  held: true,
});

/** One message, with what the batch read for it. `attempted` is set when a POST was made. */
export interface Attempted {
  ok: boolean;
  /** The answer's backpressure (retry-after.ts): 410, or `Retry-After` on 429/502/503/504. */
  backpressure: Backpressure;
  /** This attempt was the half-open circuit's probe (circuit.ts). */
  probe: boolean;
  durationMs: number;
}

/** What the batch wraps around a message's attempt: may it POST now, and a watch on the POST (endpoint-slots.ts). */
export interface AttemptHooks {
  gate?: () => Promise<Gate>;
  /** Called as the POST starts; the function it returns, when the answer is in. */
  watch?: () => () => void;
}

export async function deliverMessage(
  messageId: string,
  message: DeliveryMessage,
  delivery: DeliveryRecord | undefined,
  agent: AgentRecord | undefined,
  nowMs: number,
  { gate = async () => ({ kind: 'pass' }), watch = () => () => undefined }: AttemptHooks = {},
): Promise<{ outcome: Outcome; attempted?: Attempted }> {
  const done = { outcome: { kind: 'done' } } as const;
  if (!delivery) return done;
  const waiting = notNow(message, delivery, nowMs);
  if (waiting) return { outcome: waiting };
  if (!acceptsDelivery(agent, delivery.event_type) || !agent.webhook_secret) {
    await abandonDelivery(
      delivery,
      'webhook not enabled or not subscribed to this event type when the attempt was due',
    );
    return done;
  }
  const made = await eventToSend(delivery);
  if (!made) return done;
  // Shaped at each attempt to the webhook's pins as they are now (docs/webhooks.md, "Schema versions and pins").
  const event = atPinnedVersion(made, agent.schema_versions);
  // An open circuit parks scheduled attempts without a POST; a manual retry is the owner's to make.
  const passed = message.manual ? ({ kind: 'pass' } as const) : await gate();
  if (passed.kind === 'wait')
    return { outcome: { kind: 'later', seconds: passed.seconds, ...(passed.held ? { held: true } : {}) } };
  const take = await takeAttempt(message, delivery, messageId, nowMs);
  if ('outcome' in take) return take;
  const taken = take.taken;
  const started = Date.now();
  const answered = watch();
  const answer = await postJson({
    url: agent.webhook_url,
    ...deliveryRequest(
      event,
      signingSecrets(agent.webhook_secret, agent),
      new Date(),
      await ed25519SigningKeys(agent),
      {
        headers: await customHeaderValues(agent.webhook_headers),
        ...(delivery.trace ? { trace: delivery.trace } : {}),
      },
    ),
  }).finally(answered);
  const durationMs = Date.now() - started;
  const lastError = lastErrorOf(answer);
  const ok = lastError === null;
  const backpressure = backpressureOf(answer, nowMs);
  recordDeliveryAttempt(
    ok ? { ok: true, latencyMs: durationMs } : { ok: false, kind: failureKindOf(answer), latencyMs: durationMs },
  );
  const recorded = await recordOutcome(
    taken,
    {
      ok,
      lastError,
      entry: attemptEntry(started, durationMs, answer),
      ...(backpressure.kind === 'slow_down' ? { notBeforeSeconds: backpressure.seconds } : {}),
    },
    nowMs,
  );
  // The record keeps every attempt (newest MAX_ATTEMPT_LOG); the log line is for operators.
  log.info('delivery attempt', {
    deliveryId: delivery.id,
    eventId: event.id,
    agentId: event.agent_id,
    attempt: taken.number,
    statusCode: answer.kind === 'response' ? answer.status : null,
    error: lastError ?? undefined,
    ms: durationMs,
    outcome: recorded ? `${recorded.record.status}${taken.extra ? ' (extra attempt)' : ''}` : 'record expired',
  });
  // A scheduled message comes back for the next scheduled attempt; any other is done.
  const retryIn = message.manual ? undefined : recorded?.retryInSeconds;
  return {
    outcome: retryIn === undefined ? { kind: 'done' } : { kind: 'later', seconds: retryIn },
    attempted: { ok, backpressure, probe: passed.kind === 'probe', durationMs },
  };
}

/** The attempts a batch made for one agent, and the slowest of them (ms). */
type BatchAttempts = AgentAttempts & { slowestMs: number };

/** A message waiting for a POST slot may come back once every slot it could not have has lapsed. */
const SLOT_WINDOW: HoldWindow = { atLeast: 0, atMost: POST_SLOT_LEASE_MS / 1000 };

/**
 * An agent's state after the batch's attempts: a 410 disables the webhook at once; otherwise the
 * circuit (circuit.ts), the health clock of auto-disable (webhook-health.ts) and whether the
 * endpoint is proven (endpoint-slots.ts) take note.
 */
async function afterAttempts(
  attempts: BatchAttempts,
  circuit: CircuitOutcome | undefined,
  gone: boolean,
  nowMs: number,
): Promise<void> {
  if (gone && (await disableGoneWebhook(attempts.agent, nowMs))) return;
  if (circuit) {
    const change = await noteCircuit(attempts.agent.id, attempts.agent as CircuitRecord, circuit, nowMs);
    if (change.state === 'first_opened')
      await announceSafely('agent.webhook.failing', attempts.agent, () =>
        announceWebhookFailing(attempts.agent, change.failures),
      );
  }
  await noteAttempts(attempts, nowMs);
  await noteProven(
    attempts.agent as AgentRecord & ProvenRecord,
    { ok: !attempts.anyFailed, slowestMs: attempts.slowestMs },
    nowMs,
  );
  // After the batch's attempts, so a challenge never delays a delivery of it.
  await reverify(attempts.agent as AgentRecord & ReverifyRecord, nowMs);
}

/**
 * A batch from the queue → the ids of the messages to keep (due again later, failed, or poison for
 * the DLQ); the others are done and may be deleted.
 */
export async function deliverBatch(
  records: readonly ReceivedMessage[],
  options: DeliverOptions = {},
): Promise<string[]> {
  const clock = options.now ?? Date.now;
  const messages = records.map((record) => parseDeliveryMessage(record.body));
  const startMs = clock();
  // A copy still hopping toward a far attempt is sent on unread (queue.ts, `sendLater`).
  const hopping = messages.map((m) => (m ? hopSecondsLeft(m, startMs) : undefined));
  const valid = messages.filter((m, i) => m !== undefined && hopping[i] === undefined) as DeliveryMessage[];
  const loaded: Loaded =
    valid.length > 0
      ? await loadBatch(valid, startMs)
      : { agents: new Map(), deliveries: new Map(), held: new Map(), unread: new Set() };
  const health = new Map<string, BatchAttempts>();
  const circuits = new Map<string, CircuitOutcome>();
  const gone = new Set<string>();
  // One gate per agent and batch: a half-open circuit's probe goes to the first message only.
  const gates = new Map<string, Promise<Gate>>();
  const circuitFor = (agent: AgentRecord & CircuitRecord): Promise<Gate> => {
    const first = gates.get(agent.id);
    if (first) return first.then((g) => (g.kind === 'probe' ? { kind: 'wait', seconds: PROBE_WINDOW_MS / 1000 } : g));
    const gate = circuitGate(agent.id, agent, clock());
    gates.set(agent.id, gate);
    return gate;
  };
  // The owner's rate limit (rate-limit.ts): the batch's slots per agent, claimed at once.
  const rate = new RateAllowance();
  const wants = new Map<string, { item: Key; record: RateRecord & SlotRecord; count: number }>();
  for (const m of valid) {
    const agent = loaded.agents.get(m.agent_id) as (AgentRecord & RateRecord & SlotRecord) | undefined;
    // No slot is claimed for an endpoint that holds every message now.
    if (!agent || m.manual || loaded.held.has(agent.id)) continue;
    const want = wants.get(agent.id) ?? { item: keys.agent(agent.id), record: agent, count: 0 };
    want.count += 1;
    wants.set(agent.id, want);
  }
  // And the cap on POSTs in flight per endpoint (endpoint-slots.ts), given back after the batch's POSTs.
  const slots = new EndpointSlots(startMs);
  await Promise.all([rate.claim(wants, startMs), slots.claim(wants)]);
  // Held by the circuit or for want of a POST slot, a message waits longer each time (hold.ts).
  const gateFor =
    (agent: AgentRecord & CircuitRecord, message: DeliveryMessage, lane: { entered: boolean }) =>
    async (): Promise<Gate> => {
      const gate = await circuitFor(agent);
      if (gate.kind === 'wait')
        return { kind: 'wait', seconds: holdSeconds({ atLeast: gate.seconds }, message.waits), held: true };
      lane.entered = await slots.enter(agent.id, clock());
      if (!lane.entered) return { kind: 'wait', seconds: holdSeconds(SLOT_WINDOW, message.waits), held: true };
      return rate.take(agent.id) ? gate : { kind: 'wait', seconds: RATE_WAIT_SECONDS };
    };

  const outcomes = await Promise.all(
    records.map(async (record, i): Promise<Outcome | 'error'> => {
      const message = messages[i];
      if (!message) return { kind: 'poison' };
      try {
        const hop = hopping[i];
        if (hop !== undefined) return { kind: 'later', seconds: hop };
        const agent = loaded.agents.get(message.agent_id);
        const heldFor = message.manual ? undefined : loaded.held.get(message.agent_id);
        if (heldFor !== undefined) return heldOutcome(message, loaded, heldFor, clock());
        const lane = { entered: false };
        // A lane entered is left when the message is done, whatever its end.
        const done = deliverMessage(
          record.messageId,
          message,
          loaded.deliveries.get(message.delivery_id),
          agent,
          clock(),
          agent ? { gate: gateFor(agent, message, lane), watch: () => slots.watch(agent.id) } : undefined,
        );
        const leave = () => lane.entered && agent && slots.left(agent.id, clock());
        void done.then(leave, leave);
        const { outcome, attempted } = await done;
        if (attempted && agent) {
          const entry = health.get(agent.id) ?? { agent, anySucceeded: false, anyFailed: false, slowestMs: 0 };
          if (attempted.ok) entry.anySucceeded = true;
          else entry.anyFailed = true;
          entry.slowestMs = Math.max(entry.slowestMs, attempted.durationMs);
          health.set(agent.id, entry);
          const circuit = circuits.get(agent.id) ?? { anySucceeded: false, failed: 0, probed: false };
          if (attempted.ok) circuit.anySucceeded = true;
          else circuit.failed += 1;
          if (attempted.probe) circuit.probed = true;
          const { backpressure } = attempted;
          if (backpressure.kind === 'slow_down')
            circuit.pauseSeconds = Math.max(circuit.pauseSeconds ?? 0, backpressure.seconds);
          if (backpressure.kind === 'gone') gone.add(agent.id);
          circuits.set(agent.id, circuit);
        }
        return outcome;
      } catch (err) {
        // Left in the queue: it comes back after the queue's visibility timeout.
        log.error('deliver: message failed', {
          messageId: record.messageId,
          ...errorFields(err),
        });
        return 'error';
      }
    }),
  ).finally(() => slots.release());
  await Promise.all(
    [...health.values()].map((attempts) =>
      afterAttempts(attempts, circuits.get(attempts.agent.id), gone.has(attempts.agent.id), clock()).catch(
        (err: unknown) =>
          // The next batch for this agent notes it again: health is a judgement over days, not one write.
          log.error('deliver: webhook health not recorded', {
            agentId: attempts.agent.id,
            ...errorFields(err),
          }),
      ),
    ),
  );
  const unsent = await sendLaterAll(messages, outcomes, clock());
  const failed = records.filter((record, i) => {
    if (unsent.has(i)) return true;
    const outcome = outcomes[i]!;
    if (outcome !== 'error' && outcome.kind === 'poison')
      log.warn('deliver: unreadable message left for the DLQ', { messageId: record.messageId });
    // `later`: its next attempt was sent as a delayed copy, so this one is done (deleted).
    return outcome === 'error' || (outcome.kind !== 'done' && outcome.kind !== 'later');
  });
  return failed.map((r) => r.messageId);
}
