/** DynamoDB access of the moderation room: reports and the audit trail (a review item is read through reviews/store.ts). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { conditionalUpdate } from '../../store/conditional.ts';
import { lifecycleKeys } from '../../store/keys.ts';
import { queryAll } from '../../store/query-all.ts';
import { INDEXES } from '../../store/table.ts';

export async function readReport(target: string, reporterId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: lifecycleKeys.report(target, reporterId), ConsistentRead: true }),
  );
  return Item;
}

/** The open reports of one item, every page (an item's reports are bounded by its reporters). */
export const openReportsOf = (target: string) =>
  queryAll({
    KeyConditionExpression: 'PK = :pk',
    FilterExpression: '#status = :open',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': lifecycleKeys.reportTargetPk(target), ':open': 'open' },
    ConsistentRead: true,
  });

/** Closes one open report (leaves the open-reports index); false when it was closed meanwhile. */
export async function closeReport(report: Record<string, unknown>, resolution: string, now: string): Promise<boolean> {
  const [pk, sk] = [INDEXES.gsi1.partitionKey, INDEXES.gsi1.sortKey];
  const result = await conditionalUpdate({
    Key: { PK: report['PK'] as string, SK: report['SK'] as string },
    UpdateExpression: 'SET #status = :closed, closed_at = :now, resolution = :resolution REMOVE #pk, #sk',
    ConditionExpression: '#status = :open',
    ExpressionAttributeNames: { '#status': 'status', '#pk': pk, '#sk': sk },
    ExpressionAttributeValues: { ':closed': 'closed', ':open': 'open', ':now': now, ':resolution': resolution },
  });
  return result.ok;
}
