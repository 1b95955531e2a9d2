/**
 * Endpoints that hold every message sent to them now: the circuit is open (circuit.ts), or the
 * endpoint is in doubt and every POST slot is leased (endpoint-slots.ts). A dead endpoint's backlog
 * is almost all such messages; each worker remembers what its batches read of these endpoints, so
 * the next batch reads only the agent item for their messages, not every delivery record: a held
 * message costs its receive and its delayed copy, not a read. Only a hint: the agent item read with
 * the batch decides, and when it says the endpoint holds no longer, the records are read then.
 */
import type { CircuitRecord } from '../../agents/model.ts';
import { isProven, type SlotRecord, slotsLeasedUntil } from './endpoint-slots.ts';
import type { HoldWindow } from './hold.ts';

/** Bounds the worker's memory: the oldest noted endpoint is forgotten first. */
const MAX_REMEMBERED = 1000;

const heldUntil = new Map<string, number>();

/** Until when (ms) the agent item read holds every message of its endpoint, and how long each may wait; undefined when it does not. */
export function holdsUntil(
  agent: CircuitRecord & SlotRecord,
  nowMs: number,
): { until: number; window: HoldWindow } | undefined {
  const openUntil = agent.circuit_open_until;
  if (openUntil !== undefined && openUntil > nowMs)
    return { until: openUntil, window: { atLeast: (openUntil - nowMs) / 1000 } };
  const leased = isProven(agent, nowMs) ? undefined : slotsLeasedUntil(agent, nowMs);
  return leased === undefined ? undefined : { until: leased, window: { atLeast: 0, atMost: (leased - nowMs) / 1000 } };
}

/** What a batch read of an agent item, for the batches after it. */
export function noteHolding(agent: CircuitRecord & SlotRecord, nowMs: number): void {
  const holds = holdsUntil(agent, nowMs);
  heldUntil.delete(agent.id);
  if (holds === undefined) return;
  heldUntil.set(agent.id, holds.until);
  if (heldUntil.size > MAX_REMEMBERED) heldUntil.delete(heldUntil.keys().next().value!);
}

/** Whether the last read of this agent said it holds its messages until after `nowMs`. */
export const seemsHeld = (agentId: string, nowMs: number): boolean => (heldUntil.get(agentId) ?? 0) > nowMs;
