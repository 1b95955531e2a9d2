/**
 * The cap on POSTs in flight to one webhook in doubt, across every worker (DELIVERY.endpointInFlight):
 * a slow or dead endpoint's POSTs each hold a worker up to the 10 s deadline, and before its circuit
 * opens they would take every worker.
 *
 * Proven endpoints are not capped and cost nothing: an endpoint is proven for
 * DELIVERY.provenSeconds after its handshake (lib/agents/verify.ts) or a batch whose attempts all
 * answered 2xx within DELIVERY.slowPostMs
 * (`post_proven_until` and `post_proven_config` on the agent item, written at most once every half
 * of that while it stays proven). A failed attempt (store.ts, `countCircuitFailures`), a POST still
 * unanswered after slowPostMs (`watch`), or a new configuration puts it in doubt.
 *
 * For an endpoint in doubt the agent item keeps one lease per slot (`post_slot_<i>`,
 * the ms it lapses at). A batch takes, of the slots it read free or lapsed, as many as it has
 * messages for that agent (one conditional write each), and gives them back in one write when its
 * POSTs are done; the lease lapses after the function's timeout (and the clock skew bound), so a
 * crashed worker cannot keep one.
 * Within the batch each slot is a lane: the agent's messages POST one after another in it. A
 * message that gets no lane (no slot won, or too late in the batch for its POST to reach its
 * deadline before the function's timeout: a dead endpoint's first POST in a lane uses that up) is
 * held (hold.ts): a delayed copy, with no attempt taken. Manual retries are not capped.
 */
import { isProven, type ProvenRecord } from '../../agents/model.ts';
import { DELIVERY, FUTURE_TOLERANCE_MS, MAX_CLOCK_SKEW_MS } from '../../core/settings.ts';
import { DEFAULT_DEADLINE_MS } from '../../net/outbound.ts';
import { errorFields, log } from '../../observability/log.ts';
import { claimPostSlot, doubtEndpoint, markEndpointProven, releasePostSlots } from './store.ts';

// On the agent item, so declared with it (the agent's answer shows it too).
export { isProven, type ProvenRecord } from '../../agents/model.ts';

export type SlotRecord = { id: string } & ProvenRecord & Record<string, unknown>;

const slotNames = Array.from({ length: DELIVERY.endpointInFlight }, (_, i) => `post_slot_${i}`);

/**
 * A lease lasts the function's timeout plus the clock skew bound, so a worker whose clock runs
 * ahead never sees a live one as lapsed; one further ahead than any in-bound clock could have
 * written (a broken clock) counts as lapsed, so it cannot hold an endpoint's slots for long
 * (docs/limits.md, "Clocks").
 */
export const POST_SLOT_LEASE_MS = DELIVERY.functionTimeoutSeconds * 1000 + MAX_CLOCK_SKEW_MS;
const isLive = (lease: unknown, nowMs: number): lease is number =>
  typeof lease === 'number' && lease > nowMs && lease <= nowMs + POST_SLOT_LEASE_MS + FUTURE_TOLERANCE_MS;

/** When every POST slot of the endpoint is leased past `nowMs`: the earliest lease's end; else undefined. */
export function slotsLeasedUntil(record: SlotRecord, nowMs: number): number | undefined {
  const leases = slotNames.map((s) => record[s]);
  if (!leases.every((lease) => isLive(lease, nowMs))) return undefined;
  return Math.min(...(leases as number[]));
}

/**
 * After a batch's attempts for one agent: proven again when they all answered 2xx in time, unless
 * it still is for more than half of DELIVERY.provenSeconds (so a busy endpoint costs a write every
 * 3.5 days, not one a batch). The write holds only while no failure is counted on the item.
 */
export async function noteProven(
  agent: { id: string } & ProvenRecord,
  attempts: { ok: boolean; slowestMs: number },
  nowMs: number,
): Promise<void> {
  if (!attempts.ok || attempts.slowestMs > DELIVERY.slowPostMs || agent.config_version === undefined) return;
  const provenMs = DELIVERY.provenSeconds * 1000;
  if (isProven(agent, nowMs + provenMs / 2)) return;
  await markEndpointProven(agent.id, agent.config_version, nowMs + provenMs);
}

/** A lane's next POST starts only if it can end, at its deadline, inside the function's timeout. */
const LAST_START_MS = DELIVERY.functionTimeoutSeconds * 1000 - DEFAULT_DEADLINE_MS - 2_000;

interface Lanes {
  slots: string[];
  busy: number;
  stopped: boolean;
  waiting: ((go: boolean) => void)[];
}

/** The POST slots of one batch, per agent. */
export class EndpointSlots {
  private readonly lanes = new Map<string, Lanes>();
  private readonly proven = new Set<string>();
  /** The writes that put endpoints in doubt: awaited with the release, so Lambda does not freeze one half-made. */
  private readonly doubts = new Map<string, Promise<unknown>>();
  private readonly startMs: number;
  // Unique to the batch, so a release never frees a lease another batch took after this one lapsed.
  private readonly until: number;

  constructor(startMs: number) {
    this.startMs = startMs;
    this.until = startMs + POST_SLOT_LEASE_MS + Math.random();
  }

  /** One slot, if it is free or lapsed (or stamped by a broken clock) when the write lands. */
  private async take(agentId: string, slot: string): Promise<boolean> {
    const future = this.startMs + POST_SLOT_LEASE_MS + FUTURE_TOLERANCE_MS;
    return (await claimPostSlot(agentId, slot, this.startMs, future, this.until)).ok;
  }

  /** Takes, for each agent in doubt, up to as many slots as the batch has messages for it. */
  async claim(wants: ReadonlyMap<string, { record: SlotRecord; count: number }>): Promise<void> {
    await Promise.all(
      [...wants].map(async ([id, { record, count }]) => {
        if (isProven(record, this.startMs)) {
          this.proven.add(id);
          return;
        }
        const free = slotNames.filter((s) => !isLive(record[s], this.startMs));
        const tried = await Promise.all(
          free.slice(0, count).map(async (s) => ((await this.take(id, s)) ? s : undefined)),
        );
        const slots = tried.filter((s) => s !== undefined);
        // A slot another batch won meanwhile: the others read free are tried in turn.
        for (const s of free.slice(count)) {
          if (slots.length >= Math.min(count, tried.length)) break;
          if (await this.take(id, s)) slots.push(s);
        }
        this.lanes.set(id, { slots, busy: 0, stopped: slots.length === 0, waiting: [] });
      }),
    );
  }

  /** Whether this agent's next message may POST now (after waiting for a free lane); `left` when done. */
  async enter(id: string, nowMs: number): Promise<boolean> {
    const lanes = this.lanes.get(id);
    if (!lanes) return true;
    if (lanes.stopped || nowMs - this.startMs > LAST_START_MS) return false;
    if (lanes.busy < lanes.slots.length) {
      lanes.busy += 1;
      return true;
    }
    return new Promise((go) => lanes.waiting.push(go));
  }

  /** A lane's POST is done: the next message waiting goes, unless it is too late in the batch. */
  left(id: string, nowMs: number): void {
    const lanes = this.lanes.get(id);
    if (!lanes) return;
    if (nowMs - this.startMs > LAST_START_MS) lanes.stopped = true;
    const next = lanes.waiting.shift();
    if (!next) lanes.busy -= 1;
    else if (!lanes.stopped) next(true);
    else {
      lanes.busy -= 1;
      for (const go of [next, ...lanes.waiting.splice(0)]) go(false);
    }
  }

  /**
   * A POST to a proven endpoint starts: if it is still unanswered after DELIVERY.slowPostMs, the
   * endpoint is put in doubt (once per batch), so batches that start from then on are capped. The
   * answer that comes in time calls the returned function.
   */
  watch(id: string): () => void {
    if (!this.proven.has(id)) return () => undefined;
    const timer = setTimeout(() => {
      if (this.doubts.has(id)) return;
      const doubt = doubtEndpoint(id).catch((err: unknown) =>
        log.warn('deliver: slow endpoint not marked in doubt', { agentId: id, ...errorFields(err) }),
      );
      this.doubts.set(id, doubt);
    }, DELIVERY.slowPostMs);
    return () => clearTimeout(timer);
  }

  /** Gives every slot back (one not given back, an error, lapses with its lease), and ends the doubt writes. */
  async release(): Promise<void> {
    await Promise.all([
      ...this.doubts.values(),
      ...[...this.lanes].map(async ([agentId, { slots }]) => {
        if (slots.length === 0) return;
        const released = await releasePostSlots(agentId, slots, this.until).catch(() => ({ ok: false }));
        if (!released.ok) log.warn('deliver: POST slots left to lapse', { agentId });
      }),
    ]);
  }
}
