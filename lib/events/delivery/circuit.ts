/**
 * The per-endpoint circuit (docs/webhooks.md, "Backpressure"): an endpoint that keeps failing, or
 * that asked for a pause with `Retry-After`, gets no POSTs until its circuit closes, so a dead
 * endpoint costs the workers a read, not ten seconds per message.
 *
 * Its state lives on the agent item (one webhook per agent), which every batch already reads
 * strongly consistent: `circuit_failures` (failed attempts in a row, counted with ADD so concurrent
 * delivery Lambdas add exactly), `circuit_open_until` (ms) and `circuit_openings` (how many times
 * in a row it opened: the cooldown doubles). Every worker that reads `circuit_open_until` in the
 * future parks its messages until then without a POST. When it has passed, the one worker whose
 * conditional write moves it forward by PROBE_WINDOW_MS (the others' condition fails) makes a
 * single probe attempt; a success closes the circuit (the fields removed), a failure opens it
 * again for twice as long. At most one write per agent per batch, and none while all is well.
 */
import type { CircuitRecord } from '../../agents/model.ts';
import { DELIVERY } from '../../core/settings.ts';
import { claimCircuitProbe, closeCircuit, countCircuitFailures, openCircuit } from './store.ts';

/** How long a probe holds the half-open circuit: about one delivery attempt and its two writes. */
export const PROBE_WINDOW_MS = DELIVERY.visibilityTimeoutSeconds * 1000;

// On the agent item, so declared with it (the agent's answer shows it too).
export type { CircuitRecord } from '../../agents/model.ts';

/** `held`: no attempt may be made now (the circuit, or no POST slot); the wait grows with each hold (hold.ts). */
export type Gate = { kind: 'pass' } | { kind: 'probe' } | { kind: 'wait'; seconds: number; held?: true };

const secondsUntil = (ms: number, nowMs: number) => Math.max(1, Math.ceil((ms - nowMs) / 1000));

/**
 * Whether messages of this agent may POST now. One call per agent and batch (deliver-batch.ts
 * shares its answer between the batch's messages): a probe lets only the first message through.
 */
export async function circuitGate(agentId: string, circuit: CircuitRecord, nowMs: number): Promise<Gate> {
  const openUntil = circuit.circuit_open_until;
  if (openUntil === undefined) return { kind: 'pass' };
  if (openUntil > nowMs) return { kind: 'wait', seconds: secondsUntil(openUntil, nowMs) };
  const claimedUntil = nowMs + PROBE_WINDOW_MS;
  const claim = await claimCircuitProbe(agentId, openUntil, claimedUntil);
  if (claim.ok) return { kind: 'probe' };
  const now = claim.current?.['circuit_open_until'];
  if (typeof now !== 'number') return { kind: 'pass' }; // closed meanwhile by a success
  return { kind: 'wait', seconds: secondsUntil(Math.max(now, nowMs + 1000), nowMs) };
}

export interface CircuitOutcome {
  anySucceeded: boolean;
  failed: number;
  /** The longest `Retry-After` an answer of the batch asked for (seconds), if any. */
  pauseSeconds?: number;
  /** A probe of the half-open circuit was made (and `anySucceeded` says how it went). */
  probed: boolean;
}

export const cooldownMs = (openings: number): number =>
  Math.min(DELIVERY.circuitCooldownSeconds * 2 ** Math.max(0, openings - 1), DELIVERY.circuitMaxCooldownSeconds) * 1000;

export type CircuitChange =
  | { state: 'closed' | 'opened' | 'counted' | 'unchanged' }
  /** The first opening of a failing streak (a success closes the circuit and ends the streak), with the failures that tripped it. */
  | { state: 'first_opened'; failures: number };

/** After a batch: close on a success, count failures and open at the threshold, pause for `Retry-After`. */
export async function noteCircuit(
  agentId: string,
  seen: CircuitRecord,
  outcome: CircuitOutcome,
  nowMs: number,
): Promise<CircuitChange> {
  if (outcome.anySucceeded) {
    if (seen.circuit_failures === undefined && seen.circuit_open_until === undefined) return { state: 'unchanged' };
    await closeCircuit(agentId);
    return { state: 'closed' };
  }
  if (outcome.failed === 0) return { state: 'unchanged' };
  const counted = await countCircuitFailures(agentId, outcome.failed);
  if (!counted.ok) return { state: 'unchanged' };
  const now = (counted.attributes ?? {}) as CircuitRecord;
  const failures = now.circuit_failures ?? 0;
  const openings = (now.circuit_openings ?? 0) + 1;
  const pauseMs = (outcome.pauseSeconds ?? 0) * 1000;
  const tripped = outcome.probed || failures >= DELIVERY.circuitFailuresToOpen;
  if (!tripped && pauseMs === 0) return { state: 'counted' };
  const until = nowMs + Math.max(tripped ? cooldownMs(openings) : 0, pauseMs);
  const opened = await openCircuit(agentId, until, tripped);
  if (!opened.ok) return { state: 'counted' };
  return tripped && openings === 1 ? { state: 'first_opened', failures } : { state: 'opened' };
}
