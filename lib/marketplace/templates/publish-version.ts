import type { Caller } from '../../core/caller.ts';
import { AppError, validationError } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import { tableName } from '../../store/client.ts';
import { keys } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { transactWrite } from '../../store/transact.ts';
import type { VersionInput } from '../request-schemas.ts';
import { authoredTemplate } from './find-template.ts';
import { versionStored } from './store.ts';
import { toTemplate } from './template-item.ts';
import { compareVersions } from './version.ts';
import { newestVersions, versionItem } from './versions.ts';

const versionExists = (v: string) => new AppError('version_exists', `Version ${v} already exists.`);

/**
 * POST /templates/:id/versions (author only). The version item ("does not exist") and the
 * template's current version ("is still the one read") change together, so two concurrent
 * publishes of versions cannot both become current.
 */
export async function publishVersion(idOrSlug: string, input: VersionInput, caller: Caller) {
  return optimistic(async () => {
    const template = await authoredTemplate(idOrSlug, caller);
    const order = compareVersions(input.version, template.version);
    if (order === 0) throw versionExists(input.version);
    if (order < 0) {
      if (await versionStored(template.id, input.version)) throw versionExists(input.version);
      throw validationError([
        { path: 'version', message: `Must be greater than the current version ${template.version}.` },
      ]);
    }
    const now = nowIso();
    const result = await transactWrite([
      {
        Put: {
          TableName: tableName(),
          Item: versionItem(template.id, input.version, input.changelog ?? '', input.schema, now),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: keys.template(template.id),
          UpdateExpression: 'SET #v = :version, #schema = :schema, updated_at = :now',
          ConditionExpression: '#v = :current',
          ExpressionAttributeNames: { '#v': 'version', '#schema': 'schema' },
          ExpressionAttributeValues: {
            ':version': input.version,
            ':schema': input.schema,
            ':now': now,
            ':current': template.version,
          },
        },
      },
    ]);
    if (result.ok) {
      const updated = { ...template, version: input.version, schema: input.schema, updated_at: now };
      return toTemplate(updated, await newestVersions(template.id));
    }
    if (result.reasons[0] === 'ConditionalCheckFailed') throw versionExists(input.version);
    return RETRY;
  });
}
