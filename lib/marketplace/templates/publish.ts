import type { Caller } from '../../core/caller.ts';
import { AppError } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { tableName } from '../../store/client.ts';
import { ENTITY, keys } from '../../store/keys.ts';
import { transactWrite } from '../../store/transact.ts';
import { categoryCountChanges } from './category-counts.ts';
import type { PublishInput } from '../request-schemas.ts';
import { authorOf, newTemplateItem, toTemplate } from './template-item.ts';
import { versionItem } from './versions.ts';

/** Slugs a path segment already means: `/templates/featured` is the featured lists. */
const RESERVED_SLUGS = new Set(['featured']);

const slugTaken = () => new AppError('slug_taken', 'Another template already uses this slug.');

/**
 * Template, slug claim, first version and category counter in one transaction: the slug claim's
 * condition makes the slug unique under concurrent publishes, and a retried publish (same body
 * after a timeout) meets its own claim and gets 409 instead of a second template.
 */
export async function publishTemplate(input: PublishInput, caller: Caller) {
  if (RESERVED_SLUGS.has(input.slug)) throw slugTaken();
  const now = nowIso();
  const item = newTemplateItem(input, authorOf(caller), newUuid(), now);
  const version = versionItem(item.id, input.version, '', input.schema, now);
  const result = await transactWrite([
    { Put: { TableName: tableName(), Item: { ...keys.slug(input.slug), entity: ENTITY.slug, template_id: item.id, created_at: now }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { TableName: tableName(), Item: version } },
    ...categoryCountChanges(undefined, item),
  ]);
  if (!result.ok) {
    if (result.reasons[0] === 'ConditionalCheckFailed') throw slugTaken();
    throw new Error(`publish transaction cancelled: ${result.reasons.join(',')}`);
  }
  return toTemplate(item, [{ version: input.version, changelog: '', created_at: now }]);
}
