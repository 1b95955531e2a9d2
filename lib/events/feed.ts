import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import { keys } from '../store/keys.ts';
import { eventFromItem } from './outbox.ts';
import type { ServiceEvent } from './types.ts';

/**
 * The polling feed of one agent: its event rows, oldest first. Event ids sort by creation time, so
 * "after <event id>" is a key range and each page is one Query of `limit` items.
 */
const HIGHEST = '\uffff';

export async function eventsAfter(agentId: string, after: string | undefined, limit: number): Promise<ServiceEvent[]> {
  const prefix = keys.eventPrefix;
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.event(agentId, '').PK,
        ':from': after ? `${prefix}${after}` : prefix,
        ':to': `${prefix}${HIGHEST}`,
      },
      // BETWEEN is inclusive: one more item than asked, and the cursor itself is dropped.
      Limit: limit + 1,
      ConsistentRead: true,
    }),
  );
  return Items.map(eventFromItem)
    .filter((e) => e.id !== after)
    .slice(0, limit);
}

export interface EventPage {
  data: ServiceEvent[];
  /** The id of the page's last event (pass it as `after`); with an empty page, the `after` given. */
  next_cursor: string | null;
}

export async function listEvents(agentId: string, after: string | undefined, limit: number): Promise<EventPage> {
  const data = await eventsAfter(agentId, after, limit);
  return { data, next_cursor: data.at(-1)?.id ?? after ?? null };
}

export async function readEvent(agentId: string, eventId: string): Promise<ServiceEvent | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.event(agentId, eventId), ConsistentRead: true }));
  return Item ? eventFromItem(Item) : undefined;
}
