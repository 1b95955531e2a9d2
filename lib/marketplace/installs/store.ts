/** DynamoDB access of installs: the install transaction, the workspace's install marker and its installs, newest first. */
import { tableName } from '../../store/client.ts';
import { cursorPage, type PageRequest } from '../../store/cursor-page.ts';
import * as keys from '../../store/key-builders.ts';
import { INDEXES } from '../../store/table.ts';
import { type TransactItem, type TransactResult, transactWrite } from '../../store/transact.ts';
import type { BuiltUpdate } from '../../store/update-expression.ts';

/**
 * The install (install.ts): the workspace's marker, only if absent (the first install counts, a
 * later one fails on it); the template's counters on the condition `counters` carries; who
 * installed it, under the template (the installers a deprecation or yank notice pages through);
 * the day's stats.
 */
export const commitInstall = (
  marker: Record<string, unknown>,
  templateId: string,
  counters: BuiltUpdate,
  installer: Record<string, unknown>,
  stats: TransactItem,
  along: TransactItem[] = [],
): Promise<TransactResult> =>
  transactWrite([
    { Put: { TableName: tableName(), Item: marker, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Update: { TableName: tableName(), Key: keys.template(templateId), ...counters } },
    { Put: { TableName: tableName(), Item: installer } },
    stats,
    ...along,
  ]);

/** One page of the workspace's installs, most recent first. */
export const installsPage = (workspaceId: string, query: PageRequest) =>
  cursorPage(INDEXES.gsi1, keys.installsIndexPk(workspaceId), `installed|${workspaceId}`, query);
