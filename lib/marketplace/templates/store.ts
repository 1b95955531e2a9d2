/**
 * DynamoDB access for template items and their versions, for every room that reads or changes a
 * template (lists, trending, featured, installs, reviews, search). Keys come from lib/store/keys.ts;
 * what a change means stays with the room that makes it.
 */
import { GetCommand, QueryCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGet, keyString } from '../../store/batch.ts';
import { db, tableName } from '../../store/client.ts';
import { conditionalUpdate } from '../../store/conditional.ts';
import { keys } from '../../store/keys.ts';
import { type TemplateItem, type VersionEntry, versionEntryOf } from './template-item.ts';
import { sortableVersion } from './version.ts';

export async function readTemplate(templateId: string, consistent = false): Promise<TemplateItem | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.template(templateId), ConsistentRead: consistent }),
  );
  return Item as TemplateItem | undefined;
}

/** The id of the template that holds `slug`, if one does. */
export async function templateIdOfSlug(slug: string, consistent = false): Promise<string | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.slug(slug), ConsistentRead: consistent }),
  );
  return Item?.['template_id'] as string | undefined;
}

/** Template items for `ids` in the same order, leaving out the missing and those `keep` rejects. */
export async function templatesInOrder(
  ids: readonly string[],
  keep: (t: TemplateItem) => boolean = () => true,
): Promise<TemplateItem[]> {
  const found = await batchGet(ids.map(keys.template));
  return ids
    .map((id) => found.get(keyString(keys.template(id))) as TemplateItem | undefined)
    .filter((t): t is TemplateItem => t !== undefined && keep(t));
}

/**
 * One update of a template item on the condition the update carries (what the change was decided
 * from): false when the condition no longer holds, so the caller reads again or lets it be.
 */
export async function updateTemplateIf(
  templateId: string,
  update: Omit<UpdateCommandInput, 'TableName' | 'Key' | 'ReturnValuesOnConditionCheckFailure'>,
): Promise<boolean> {
  return (await conditionalUpdate({ ...update, Key: keys.template(templateId) })).ok;
}

export async function versionStored(templateId: string, version: string): Promise<boolean> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.version(templateId, sortableVersion(version)) }),
  );
  return Item !== undefined;
}

/** The newest `limit` versions, without their schemas (details show the history, not every past schema). */
export async function newestVersionEntries(templateId: string, limit: number): Promise<VersionEntry[]> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :ver)',
      ExpressionAttributeValues: { ':pk': keys.template(templateId).PK, ':ver': keys.versionPrefix },
      ProjectionExpression: '#v, changelog, created_at, deprecated_message, deprecated_at, yanked_at',
      ExpressionAttributeNames: { '#v': 'version' },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items.map(versionEntryOf);
}
