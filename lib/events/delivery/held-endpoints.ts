/**
 * Endpoints that hold every message sent to them now: the circuit is open (circuit.ts), or the
 * endpoint is in doubt and every POST slot is leased (endpoint-slots.ts). A dead endpoint's backlog
 * is almost all such messages. Each worker remembers what its batches read of these endpoints, so
 * that the next batch reads no delivery record for their messages, and while the circuit it read
 * is open, not even the agent item: nothing can close a circuit before its time (only the probe
 * after it does), so a held message costs its receive and its delayed copy only. Slots can be given
 * back any moment, so what a worker read of them stands for a second only (a dead endpoint's backlog
 * comes in bursts of batches; a slot given back within that second costs the messages held meanwhile
 * one hold); after it, the agent item is read again, and when it holds no longer the records are read.
 */
import type { CircuitRecord } from '../../agents/model.ts';
import { isProven, type SlotRecord, slotsLeasedUntil } from './endpoint-slots.ts';
import type { HoldWindow } from './hold.ts';

/** Bounds the worker's memory: the oldest noted endpoint is forgotten first. */
const MAX_REMEMBERED = 1000;

interface Holding {
  /** ms: the circuit's time, or the earliest lease's end. */
  until: number;
  by: 'circuit' | 'slots';
  /** ms: when it was read. */
  read: number;
}

/** How long what a worker read of an endpoint's slots stands without reading its agent item again. */
const SLOTS_STAND_MS = 1000;

const remembered = new Map<string, Holding>();

function holdingOf(agent: CircuitRecord & SlotRecord, nowMs: number): Holding | undefined {
  const openUntil = agent.circuit_open_until;
  if (openUntil !== undefined && openUntil > nowMs) return { until: openUntil, by: 'circuit', read: nowMs };
  const leased = isProven(agent, nowMs) ? undefined : slotsLeasedUntil(agent, nowMs);
  return leased === undefined ? undefined : { until: leased, by: 'slots', read: nowMs };
}

/** How long a held message may wait: at least the circuit's time left, or at most until the slots lapse. */
const windowOf = ({ until, by }: Holding, nowMs: number): HoldWindow =>
  by === 'circuit' ? { atLeast: (until - nowMs) / 1000 } : { atLeast: 0, atMost: (until - nowMs) / 1000 };

/** Whether the agent item read holds every message of its endpoint now, and for how long; noted for the batches after. */
export function holdsNow(agent: CircuitRecord & SlotRecord, nowMs: number): HoldWindow | undefined {
  const holding = holdingOf(agent, nowMs);
  remembered.delete(agent.id);
  if (holding === undefined) return undefined;
  remembered.set(agent.id, holding);
  if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
  return windowOf(holding, nowMs);
}

/**
 * What this worker last read of the agent, while it still holds: the window its messages wait in,
 * and whether it stands without reading the agent item again (an open circuit does).
 */
export function rememberedHold(agentId: string, nowMs: number): { window: HoldWindow; stands: boolean } | undefined {
  const holding = remembered.get(agentId);
  if (!holding || holding.until <= nowMs) return undefined;
  const stands = holding.by === 'circuit' || nowMs - holding.read < SLOTS_STAND_MS;
  return { window: windowOf(holding, nowMs), stands };
}
