/**
 * BatchGetItem / BatchWriteItem in chunks of the API's limits, re-sending whatever DynamoDB hands
 * back unprocessed (it does that under throttling) with a short growing pause.
 */

import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../core/errors.ts';
import { db, tableName } from './client.ts';
import type { Key } from './keys.ts';

const GET_CHUNK = 100;
const WRITE_CHUNK = 25;
const MAX_ROUNDS = 8;

const pause = (round: number) => new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** round)));

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The items for `keys` (missing ones are absent), keyed by `PK|SK`. Duplicate keys are read once. */
export async function batchGet(
  keys: readonly Key[],
  options: { consistent?: boolean } = {},
): Promise<Map<string, Record<string, unknown>>> {
  const unique = [...new Map(keys.map((k) => [keyString(k), k])).values()];
  const found = new Map<string, Record<string, unknown>>();
  await Promise.all(
    chunks(unique, GET_CHUNK).map(async (chunk) => {
      let pending: Record<string, unknown>[] = chunk.map((k) => ({ PK: k.PK, SK: k.SK }));
      for (let round = 0; pending.length > 0; round++) {
        if (round >= MAX_ROUNDS) throw new InvariantError('BatchGetItem kept returning unprocessed keys');
        if (round > 0) await pause(round);
        const table = tableName();
        const res = await db().send(
          new BatchGetCommand({
            RequestItems: { [table]: { Keys: pending, ...(options.consistent ? { ConsistentRead: true } : {}) } },
          }),
        );
        for (const item of res.Responses?.[table] ?? []) found.set(keyString(item as unknown as Key), item);
        pending = (res.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
    }),
  );
  return found;
}

export type WriteRequest = { put: Record<string, unknown> } | { delete: Key };

/**
 * Puts and deletes, not atomic as a whole (callers make each item idempotent). After a failure no
 * worker starts another call, and the error is thrown only once every call already made has
 * settled: a caller that reports failure and is retried must not have writes of its own still
 * landing behind the retry (the relay relies on it, docs/events.md).
 */
export async function batchWrite(requests: readonly WriteRequest[], parallel = 4): Promise<void> {
  const queue = chunks(requests, WRITE_CHUNK);
  let failed = false;
  const worker = async () => {
    for (let chunk = queue.shift(); chunk && !failed; chunk = queue.shift()) {
      const table = tableName();
      let pending = chunk.map((r) =>
        'put' in r ? { PutRequest: { Item: r.put } } : { DeleteRequest: { Key: { PK: r.delete.PK, SK: r.delete.SK } } },
      );
      for (let round = 0; pending.length > 0 && !failed; round++) {
        if (round >= MAX_ROUNDS) throw new InvariantError('BatchWriteItem kept returning unprocessed items');
        if (round > 0) await pause(round);
        const res = await db().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (res.UnprocessedItems?.[table] as typeof pending | undefined) ?? [];
      }
    }
  };
  const results = await Promise.allSettled(
    Array.from({ length: parallel }, () =>
      worker().catch((err: unknown) => {
        failed = true;
        throw err;
      }),
    ),
  );
  const rejected = results.find((r) => r.status === 'rejected');
  if (rejected) throw rejected.reason;
}

export const keyString = (key: Key): string => `${key.PK}|${key.SK}`;
