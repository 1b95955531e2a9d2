/**
 * The cap on POSTs in flight to one webhook, across every worker (DELIVERY.endpointInFlight): a
 * slow or dead endpoint's POSTs each hold a worker up to the 10 s deadline, and before its circuit
 * opens they would take every worker. The agent item keeps one lease per slot (`post_slot_<i>`,
 * the ms it lapses at). A batch takes, of the slots it read free or lapsed, as many as it has
 * messages for that agent (one conditional write each), and gives them back in one write when its
 * POSTs are done; the lease lapses after the function's timeout, so a crashed worker cannot keep one.
 * Within the batch each slot is a lane: the agent's messages POST one after another in it. A
 * message that gets no lane (no slot won, or too late in the batch for its POST to reach its
 * deadline before the function's timeout: a dead endpoint's first POST in a lane uses that up) waits as the rate limit's excess does (rate-limit.ts): a
 * delayed copy RATE_WAIT_SECONDS later, with no attempt taken. Manual retries are not capped.
 */
import { DELIVERY } from '../../core/settings.ts';
import { DEFAULT_DEADLINE_MS } from '../../net/outbound.ts';
import { log } from '../../observability/log.ts';
import { claimPostSlot, releasePostSlots } from './store.ts';

export type SlotRecord = { id: string } & Record<string, unknown>;

const slotNames = Array.from({ length: DELIVERY.endpointInFlight }, (_, i) => `post_slot_${i}`);

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
  private readonly startMs: number;
  // Unique to the batch, so a release never frees a lease another batch took after this one lapsed.
  private readonly until: number;

  constructor(startMs: number) {
    this.startMs = startMs;
    this.until = startMs + DELIVERY.functionTimeoutSeconds * 1000 + Math.random();
  }

  /** Takes, for each agent, up to as many slots as the batch has messages for it. */
  async claim(wants: ReadonlyMap<string, { record: SlotRecord; count: number }>): Promise<void> {
    await Promise.all(
      [...wants].map(async ([id, { record, count }]) => {
        const free = slotNames.filter((s) => typeof record[s] !== 'number' || (record[s] as number) < this.startMs);
        const tried = await Promise.all(
          free
            .slice(0, count)
            .map(async (s) => ((await claimPostSlot(id, s, this.startMs, this.until)).ok ? s : undefined)),
        );
        const slots = tried.filter((s) => s !== undefined);
        // A slot another batch won meanwhile: the others read free are tried in turn.
        for (const s of free.slice(count)) {
          if (slots.length >= Math.min(count, tried.length)) break;
          if ((await claimPostSlot(id, s, this.startMs, this.until)).ok) slots.push(s);
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

  /** Gives every slot back; one not given back (an error) lapses with its lease. */
  async release(): Promise<void> {
    await Promise.all(
      [...this.lanes].map(async ([agentId, { slots }]) => {
        if (slots.length === 0) return;
        const released = await releasePostSlots(agentId, slots, this.until).catch(() => ({ ok: false }));
        if (!released.ok) log.warn('deliver: POST slots left to lapse', { agentId });
      }),
    );
  }
}
