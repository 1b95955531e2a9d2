/** DynamoDB access of installs beyond the install transaction: the workspace's install marker. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { keys } from '../../store/keys.ts';

export async function readInstallMarker(
  workspaceId: string,
  templateId: string,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.install(workspaceId, templateId), ConsistentRead: true }),
  );
  return Item;
}
