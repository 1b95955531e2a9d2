import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { AppError, rateLimited } from '../core/errors.ts';
import { backoff, stillContended } from './backoff.ts';
import { db } from './client.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Items a caller asks to commit in the same transaction as a change, made from the change's result
 * (the HTTP stack's `Idempotency-Key` answer, lib/idempotency/store.ts completionItem): they
 * commit with the change or not at all. A service that takes one appends its items last and
 * reads their cancellation reasons with `alongRefused`.
 */
export type CommitAlong<T> = (result: T) => TransactItem[];

/** Whether the items a CommitAlong added (the last `count` of the transaction) failed their condition. */
export const alongRefused = (reasons: readonly string[], count: number): boolean =>
  count > 0 && reasons.slice(-count).includes('ConditionalCheckFailed');

/**
 * The answer when they did: the request's `Idempotency-Key` is no longer its own (a retry took it
 * over after this request's time ran out), so nothing was committed and the retry's answer counts.
 */
export const alongLost = (): AppError =>
  new AppError(
    'idempotency_key_in_use',
    'A retry under the same Idempotency-Key took over this request; nothing was changed by this one. Retry to get the answer.',
  );

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
        throw rateLimited('This item is receiving too many writes right now; try again in a moment.', 1, err);
      }
      const conflictOnly =
        reasons.some((r) => r === 'TransactionConflict') && !reasons.includes('ConditionalCheckFailed');
      if (!conflictOnly) return { ok: false, reasons };
      if (attempt >= CONFLICT_ATTEMPTS) throw stillContended();
      await backoff(attempt);
    }
  }
}
