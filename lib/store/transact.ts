import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { AppError, InvariantError, rateLimited } from '../core/errors.ts';
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

/**
 * A change that is one write (a Put, Update or Delete), with the items a CommitAlong made for it:
 * without any, the plain call it always was; with them, one transaction, so the change commits
 * only with them. false when the write's own condition failed (nothing written).
 */
export async function writeWithAlong(write: TransactItem, along: TransactItem[] = []): Promise<boolean> {
  if (along.length > 0) {
    const result = await transactWrite([write, ...along]);
    if (result.ok) return true;
    if (alongRefused(result.reasons, along.length)) throw alongLost();
    if (result.reasons[0] === 'ConditionalCheckFailed') return false;
    throw new InvariantError(`write cancelled: ${result.reasons.join(', ')}`);
  }
  try {
    if (write.Put) await db().send(new PutCommand(write.Put));
    else if (write.Update) await db().send(new UpdateCommand(write.Update));
    else if (write.Delete) await db().send(new DeleteCommand(write.Delete));
    else throw new InvariantError('writeWithAlong takes a Put, an Update or a Delete');
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * The items along alone, for an answer whose change is not a write of this table (a queue message
 * sent) or is none (nothing to replay): the answer still commits before it is given, so a retry
 * after a lost reply gets it rather than acting again.
 */
export async function commitAlongAlone(along: TransactItem[] = []): Promise<void> {
  if (along.length === 0) return;
  const result = await transactWrite(along);
  if (!result.ok) throw alongLost();
}
