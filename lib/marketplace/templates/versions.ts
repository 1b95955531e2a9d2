import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { ENTITY, keys } from '../../store/keys.ts';
import type { VersionEntry } from './template-item.ts';
import type { TemplateSchema } from './template-schema.ts';
import { sortableVersion } from './version.ts';

/** One item per published version (with its schema, so a contract can pin the version it used). */
export function versionItem(templateId: string, version: string, changelog: string, schema: TemplateSchema, now: string) {
  return {
    ...keys.version(templateId, sortableVersion(version)),
    entity: ENTITY.version,
    template_id: templateId,
    version,
    changelog,
    schema,
    created_at: now,
  };
}

/** Details show at most this many versions, newest first. */
export const VERSIONS_SHOWN = 100;

export async function newestVersions(templateId: string): Promise<VersionEntry[]> {
  const { Items = [] } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :ver)',
      ExpressionAttributeValues: { ':pk': keys.template(templateId).PK, ':ver': keys.versionPrefix },
      // The schema stays behind: details show the history, not every past schema.
      ProjectionExpression: '#v, changelog, created_at',
      ExpressionAttributeNames: { '#v': 'version' },
      ScanIndexForward: false,
      Limit: VERSIONS_SHOWN,
    }),
  );
  return Items.map((v) => ({ version: v['version'], changelog: v['changelog'] ?? '', created_at: v['created_at'] }));
}
