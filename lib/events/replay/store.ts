import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, replayPageKey } from '../../store/keys.ts';
import type { TransactItem } from '../../store/transact.ts';
import { commitAlongAlone, writeWithAlong } from '../../store/write-along.ts';

const PAGE_TTL_SECONDS = 7 * 24 * 3600;

/** A job's page item: where the page starts and what the job asked for. */
export interface ReplayPage {
  agent_id: string;
  job_id: string;
  page: number;
  /** Exclusive start: the last slot the previous page passed, or undefined for the feed's start. */
  after?: string;
  /** Inclusive end (a cursor after every slot of the window). */
  end: string;
  types: string[];
  replayed: number;
  requested_at: string;
  /** Replayed to this AWS destination of the agent instead of its webhook. */
  destination_id?: string;
}

function windowQuery(agentId: string, after: string | undefined, end: string, types: readonly string[]) {
  const typeNames = types.map((_, i) => `:t${i}`);
  return {
    TableName: tableName(),
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    FilterExpression: `entity = :event AND #type IN (${typeNames.join(', ')})`,
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: {
      ':pk': keys.event(agentId, '').PK,
      // BETWEEN is inclusive; `after` is a slot already passed (or a cursor no item has), dropped below.
      ':from': keys.event(agentId, after ?? '').SK,
      ':to': keys.event(agentId, end).SK,
      ':event': ENTITY.event,
      ...Object.fromEntries(types.map((t, i) => [typeNames[i]!, t])),
    },
    ConsistentRead: true,
  };
}

/** Events of the window's kinds after `after` up to `end` (the count a job reports as `replayed`). */
export async function countEvents(
  agentId: string,
  after: string | undefined,
  end: string,
  types: readonly string[],
): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({ ...windowQuery(agentId, after, end, types), Select: 'COUNT', ExclusiveStartKey: startKey }),
    );
    count += res.Count ?? 0;
    startKey = res.LastEvaluatedKey;
  } while (startKey);
  // The start cursor is never an item of the feed (start-point.ts), so BETWEEN counted nothing at it.
  return count;
}

/** Up to `limit` slots read after `after`; `last` is the last slot read when more may follow. */
export async function eventsIn(
  agentId: string,
  after: string | undefined,
  end: string,
  types: readonly string[],
  limit: number,
): Promise<{ items: Record<string, unknown>[]; last: string | undefined }> {
  // BETWEEN includes `after` itself when it is a slot: one more read, so `limit` slots follow it.
  const res = await db().send(
    new QueryCommand({ ...windowQuery(agentId, after, end, types), Limit: after === undefined ? limit : limit + 1 }),
  );
  const items = (res.Items ?? []).filter((item) => item['id'] !== after);
  const lastKey = res.LastEvaluatedKey?.['SK'] as string | undefined;
  return { items, last: lastKey === undefined ? undefined : lastKey.slice(keys.eventPrefix.length) };
}

/**
 * Writes a job's page item once (a conditional put); its INSERT reaches the relay through the stream.
 * `along`: items committed with it (the request's Idempotency-Key answer, with a job's first page).
 */
export async function putPage(page: ReplayPage, along: TransactItem[] = []): Promise<void> {
  // A page handled twice (the stream may hand a record over again) writes its successor once:
  // a failed condition is that, and nothing to answer.
  await writeWithAlong(
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...replayPageKey(page.agent_id, page.job_id, page.page),
          entity: ENTITY.replayPage,
          deliver: true,
          ...page,
          expires_at: Math.floor(Date.now() / 1000) + PAGE_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    along,
  );
}

/** The answer of a replay that has nothing to send (no page is written), committed alone. */
export const commitEmptyReplayAnswer = (along: TransactItem[] | undefined): Promise<void> => commitAlongAlone(along);
