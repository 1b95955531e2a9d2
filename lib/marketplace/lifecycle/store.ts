/** DynamoDB reads of the lifecycle room: one version item, and the newest version not yanked. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { ENTITY, keys, lifecycleKeys } from '../../store/keys.ts';
import { type TransactItem, type TransactResult, transactWrite } from '../../store/transact.ts';
import { writeWithAlong } from '../../store/write-along.ts';
import type { TemplateSchema } from '../templates/template-schema.ts';
import { sortableVersion } from '../templates/version.ts';
import { type NoticePage, putNoticePage } from './notice-page.ts';

export interface StoredVersion {
  version: string;
  changelog?: string;
  schema: TemplateSchema;
  created_at: string;
  deprecated_message?: string;
  deprecated_at?: string;
  yanked_at?: string;
}

export async function readVersion(templateId: string, version: string): Promise<StoredVersion | undefined> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.version(templateId, sortableVersion(version)),
      ConsistentRead: true,
    }),
  );
  return Item as StoredVersion | undefined;
}

/**
 * The newest version that is not yanked, judging `changed` by its new state rather than the stored
 * one (the change being decided is not written yet). Reads newest first, a page at a time, and stops
 * at the first hit: yanking the current version usually reads two items.
 */
export async function newestUnyanked(
  templateId: string,
  changed: { version: string; yanked: boolean },
): Promise<StoredVersion | undefined> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :ver)',
        ExpressionAttributeValues: { ':pk': keys.template(templateId).PK, ':ver': keys.versionPrefix },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 10,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as StoredVersion[]) {
      const yanked = item.version === changed.version ? changed.yanked : item.yanked_at !== undefined;
      if (!yanked) return item;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return undefined;
}

/** The workspace's choice of agents that hear of its installed templates (event-agents.ts). */
export async function readEventAgentsItem(workspaceId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: lifecycleKeys.eventAgents(workspaceId), ConsistentRead: true }),
  );
  return Item;
}

export async function putEventAgents(
  workspaceId: string,
  chosen: { agent_ids: string[]; updated_at: string | null },
  along: TransactItem[] = [],
) {
  await writeWithAlong(
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...lifecycleKeys.eventAgents(workspaceId),
          entity: ENTITY.eventAgents,
          workspace_id: workspaceId,
          ...chosen,
        },
      },
    },
    along,
  );
}

/** Up to `limit` installers of a template after the sort key `after` (notices.ts pages through them). */
export async function installersPage(templateId: string, after: string | undefined, limit: number) {
  const pk = keys.template(templateId).PK;
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :installer)',
      ExpressionAttributeValues: { ':pk': pk, ':installer': lifecycleKeys.installerPrefix },
      Limit: limit,
      ...(after ? { ExclusiveStartKey: { PK: pk, SK: after } } : {}),
    }),
  );
  return { items: res.Items ?? [], more: res.LastEvaluatedKey !== undefined };
}

/** The notice's next page, unless it was written already (a page run again). */
export const putNextNoticePage = (page: NoticePage): Promise<TransactResult> => transactWrite([putNoticePage(page)]);
