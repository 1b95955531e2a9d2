/** DynamoDB reads of the lifecycle room: one version item, and the newest version not yanked. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { keys } from '../../store/keys.ts';
import type { TemplateSchema } from '../templates/template-schema.ts';
import { sortableVersion } from '../templates/version.ts';

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
