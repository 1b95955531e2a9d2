import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { rateLimited } from '../core/errors.ts';
import { backoff, stillContended } from './backoff.ts';
import { db } from './client.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** `ok`, or the cancellation code of each item in order ('None' for the items that were fine). */
export type TransactResult = { ok: true } | { ok: false; reasons: string[] };

const CONFLICT_ATTEMPTS = 12;

/**
 * One TransactWriteItems. A failed condition is an answer, not an error: the caller reads
 * `reasons` to tell "slug taken" from "already installed". A conflict with another transaction on
 * the same item (many installs of one template at once) is retried with jittered backoff, because
 * nothing was written and the request is still valid.
 */
export async function transactWrite(items: TransactItem[]): Promise<TransactResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return { ok: true };
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      const reasons = (err.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
      if (reasons.some((r) => r === 'ThrottlingError' || r === 'ProvisionedThroughputExceeded')) {
        // The SDK already retried; the hot item or index partition is at its limit (see docs/marketplace.md).
        throw rateLimited('This item is receiving too many writes right now; try again in a moment.', 1);
      }
      const conflictOnly = reasons.some((r) => r === 'TransactionConflict') && !reasons.includes('ConditionalCheckFailed');
      if (!conflictOnly) return { ok: false, reasons };
      if (attempt >= CONFLICT_ATTEMPTS) throw stillContended();
      await backoff(attempt);
    }
  }
}
