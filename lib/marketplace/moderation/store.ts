import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { InvariantError } from '../../core/errors.ts';
import { db, tableName } from '../../store/client.ts';
import { conditionalUpdate } from '../../store/conditional.ts';
import { cursorPage, type PageRequest } from '../../store/cursor-page.ts';
import * as keys from '../../store/key-builders.ts';
import { lifecycleKeys } from '../../store/keys.ts';
import { queryAll } from '../../store/query-all.ts';
import { INDEXES } from '../../store/table.ts';
import { type TransactItem, type TransactResult, transactWrite } from '../../store/transact.ts';
import type { BuiltUpdate } from '../../store/update-expression.ts';
import { writeWithAlong } from '../../store/write-along.ts';
import { sortableVersion } from '../templates/version.ts';
import { actionItem, type ModerationAction } from './action-item.ts';

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

/** Files a report, unless the reporter has an open one of the item (false); a closed one gives way. */
export const putReport = (item: Record<string, unknown>, along: TransactItem[] = []): Promise<boolean> =>
  writeWithAlong(
    {
      Put: {
        TableName: tableName(),
        Item: item,
        ConditionExpression: 'attribute_not_exists(PK) OR #status = :closed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':closed': 'closed' },
      },
    },
    along,
  );

/** One page of the open reports, newest first. */
export const openReportsPage = (query: PageRequest) =>
  cursorPage(INDEXES.gsi1, lifecycleKeys.openReportsIndexPk, 'reports|open', query);

/** One page of the audit trail, newest first. */
export const actionsPage = (query: PageRequest) =>
  cursorPage(INDEXES.gsi1, lifecycleKeys.moderationLogPk, 'moderation|log', query);

/** The action's audit item as an item of the transaction that makes its change. */
export const putActionItem = (action: ModerationAction): TransactItem => ({
  Put: { TableName: tableName(), Item: actionItem(action) },
});

/** The held version's side of a release or reject (held.ts): only while it is held. */
export const heldVersionChange = (
  templateId: string,
  version: string,
  decision: 'release' | 'reject',
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.version(templateId, sortableVersion(version)),
    UpdateExpression: decision === 'release' ? 'REMOVE quarantine' : 'SET quarantine.#s = :rejected',
    ConditionExpression: 'attribute_exists(quarantine)',
    ...(decision === 'reject'
      ? { ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':rejected': 'rejected' } }
      : {}),
  },
});

/** An action that changes nothing else: its audit item alone, with `along` (the request's Idempotency-Key answer). */
export async function recordAction(action: ModerationAction, along: TransactItem[] = []): Promise<void> {
  if (!(await writeWithAlong(putActionItem(action), along))) throw new InvariantError('audit item not written');
}

/** How many reports the action closed (they are closed after it is recorded), with `along` (the answer amended). */
export async function setReportsClosed(actionId: string, closed: number, along: TransactItem[] = []): Promise<void> {
  await writeWithAlong(
    {
      Update: {
        TableName: tableName(),
        Key: lifecycleKeys.moderationAction(actionId),
        UpdateExpression: 'SET reports_closed = :n',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':n': closed },
      },
    },
    along,
  );
}

/** The ids of every template the author published (their slug claims' author index). */
export async function templateIdsOfAuthor(authorId: string): Promise<string[]> {
  const claims = await queryAll({
    IndexName: INDEXES.gsi1.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': INDEXES.gsi1.partitionKey },
    ExpressionAttributeValues: { ':pk': lifecycleKeys.authoredIndexPk(authorId) },
  });
  return claims.map((claim) => claim['template_id'] as string);
}

/**
 * A review hidden or restored (`update` carries the condition that it was not already), the
 * template's rating sum and count moved by `sign` (-1 hides, +1 restores), and the audit item.
 */
export const commitReviewModeration = (
  templateId: string,
  reviewerId: string,
  update: BuiltUpdate,
  rating: number,
  sign: -1 | 1,
  action: ModerationAction,
  along: TransactItem[] = [],
): Promise<TransactResult> =>
  transactWrite([
    { Update: { TableName: tableName(), Key: keys.review(templateId, reviewerId), ...update } },
    {
      Update: {
        TableName: tableName(),
        Key: keys.template(templateId),
        UpdateExpression: 'ADD rating_sum :rating, rating_count :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':rating': sign * rating, ':one': sign },
      },
    },
    putActionItem(action),
    ...along,
  ]);
