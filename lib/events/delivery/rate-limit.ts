/**
 * The owner's rate limit (`rate_limit`, deliveries a second, lib/agents/rate-limit.ts) of a webhook
 * (on the agent item) or an AWS destination (on the destination item), for every worker at once:
 * fixed one-second windows kept on that item (`rate_second`, the epoch second, and `rate_used`).
 * A batch claims the slots it wants of the current second in one conditional write, as many as are
 * left; the condition holds only while the window it read (strongly consistent, with the batch) is
 * still the item's, so no slot is handed out twice. A message without a slot waits its turn: its
 * attempt is sent again a second later as a delayed copy, with no attempt taken (never dropped,
 * never a failed attempt: docs/webhooks.md, "Backpressure and rate limits"). An item without a
 * limit costs nothing. Manual retries are the owner's own request and go at once.
 */
import type { Key } from '../../store/keys.ts';
import { claimRateWindow } from './store.ts';

export interface RateRecord {
  rate_limit?: number | null;
  rate_second?: number;
  rate_used?: number;
}

/** How long a message without a slot waits before it asks again. */
export const RATE_WAIT_SECONDS = 1;

/** Slots granted of `wanted` in the current second (all of them without a limit). */
export async function claimRateSlots(item: Key, record: RateRecord, wanted: number, nowMs: number): Promise<number> {
  const limit = record.rate_limit;
  if (!limit || wanted === 0) return wanted;
  const second = Math.floor(nowMs / 1000);
  const used = record.rate_second === second ? (record.rate_used ?? 0) : 0;
  const granted = Math.min(wanted, limit - used);
  if (granted <= 0) return 0;
  const claimed = await claimRateWindow(item, record, second, used + granted);
  return claimed.ok ? granted : 0;
}

/** A batch's slots per item, handed out one message at a time. */
export class RateAllowance {
  private readonly left = new Map<string, number>();

  /** Claims, for each item with a limit, as many slots as the batch has messages for it. */
  async claim(
    wants: ReadonlyMap<string, { item: Key; record: RateRecord; count: number }>,
    nowMs: number,
  ): Promise<void> {
    await Promise.all(
      [...wants].map(async ([id, want]) => {
        if (!want.record.rate_limit) return;
        this.left.set(id, await claimRateSlots(want.item, want.record, want.count, nowMs));
      }),
    );
  }

  /** Whether a message of this item may go now (and uses a slot if so). */
  take(id: string): boolean {
    const left = this.left.get(id);
    if (left === undefined) return true;
    if (left <= 0) return false;
    this.left.set(id, left - 1);
    return true;
  }
}
