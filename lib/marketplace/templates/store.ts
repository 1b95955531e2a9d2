/**
 * DynamoDB access for template items and their versions, for every room that reads or changes a
 * template (lists, trending, featured, installs, reviews, search). Keys come from lib/store/keys.ts;
 * what a change means stays with the room that makes it.
 */
import { GetCommand, QueryCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { batchGet, keyString } from '../../store/batch.ts';
import { db, tableName } from '../../store/client.ts';
import { conditionalUpdate } from '../../store/conditional.ts';
import { type IndexPage, readIndexPage } from '../../store/index-page.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import type { IndexDefinition } from '../../store/table.ts';
import { type TransactItem, type TransactResult, transactWrite } from '../../store/transact.ts';
import type { BuiltUpdate } from '../../store/update-expression.ts';
import { CATEGORIES, type Category } from './categories.ts';
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

/**
 * Version items from `first` to `last` (both included), newest first: one Query of their keys'
 * range, billed by the items read whole (schemas and all) whatever `projection` keeps.
 */
export async function versionsBetween(
  templateId: string,
  first: string,
  last: string,
  options: { limit: number; projection?: string; consistent?: boolean; startKey?: Record<string, unknown> },
) {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
      ExpressionAttributeValues: {
        ':pk': keys.template(templateId).PK,
        ':first': keys.version(templateId, sortableVersion(first)).SK,
        ':last': keys.version(templateId, sortableVersion(last)).SK,
      },
      ...(options.projection ? { ProjectionExpression: options.projection } : {}),
      ScanIndexForward: false,
      ConsistentRead: options.consistent === true,
      Limit: options.limit,
      ExclusiveStartKey: options.startKey,
    }),
  );
  return { items: page.Items ?? [], lastKey: page.LastEvaluatedKey };
}

/** Neither yanked nor waiting in quarantine: a version installs, upgrades and contracts may take. */
export const isTakeable = (v: Record<string, unknown>): boolean =>
  v['yanked_at'] === undefined && v['quarantine'] === undefined;

/** The newest takeable version from `first` to `last`: a few items a page, stopping at the first hit (usually one item). */
export async function newestTakeableBetween(
  templateId: string,
  first: string,
  last: string,
): Promise<string | undefined> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await versionsBetween(templateId, first, last, {
      limit: 2,
      projection: 'version, yanked_at, quarantine',
      ...(startKey ? { startKey } : {}),
    });
    const hit = page.items.find(isTakeable);
    if (hit) return hit['version'] as string;
    startKey = page.lastKey;
  } while (startKey);
  return undefined;
}

/** The changelogs of the versions after `from` up to `to` (included), newest first, at most `limit`. */
export async function changelogsBetween(templateId: string, from: string, to: string, limit: number) {
  const { items } = await versionsBetween(templateId, from, to, {
    limit: limit + 1,
    projection: 'version, changelog, quarantine',
  });
  return items
    .filter((v) => v['version'] !== from)
    .map((v) => ({
      version: v['version'] as string,
      changelog: (v['changelog'] as string | undefined) ?? '',
      quarantined: v['quarantine'] !== undefined,
    }))
    .slice(0, limit);
}

/** Version items by version (one BatchGetItem per 100), in the order asked; undefined where missing. */
export async function versionItems(wanted: readonly { templateId: string; version: string }[]) {
  const found = await batchGet(wanted.map((w) => keys.version(w.templateId, sortableVersion(w.version))));
  return wanted.map((w) => found.get(keyString(keys.version(w.templateId, sortableVersion(w.version)))));
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
      ProjectionExpression: '#v, changelog, created_at, deprecated_message, deprecated_at, yanked_at, quarantine',
      ExpressionAttributeNames: { '#v': 'version' },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items.map(versionEntryOf);
}

/**
 * A new template (publish.ts): the slug claim first (its "does not exist" makes the slug unique;
 * its author index lets an operator who marks the author verified find the author's templates),
 * the template item, its first version, then `along` (counters, the stored answer).
 */
export const insertTemplate = (
  item: TemplateItem,
  version: Record<string, unknown>,
  authorId: string,
  along: TransactItem[],
): Promise<TransactResult> =>
  transactWrite([
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.slug(item.slug),
          entity: ENTITY.slug,
          template_id: item.id,
          created_at: item.created_at,
          ...lifecycleKeys.authoredIndex(authorId, item.created_at, item.id),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { TableName: tableName(), Item: version } },
    ...along,
  ]);

/** The template's update on the condition it carries, with the items that change along (counters, …). */
export const commitTemplateUpdate = (
  templateId: string,
  update: BuiltUpdate,
  along: TransactItem[] = [],
): Promise<TransactResult> =>
  transactWrite([{ Update: { TableName: tableName(), Key: keys.template(templateId), ...update } }, ...along]);

/** A version item only if absent, or held or rejected by the gate: the author publishes it again, fixed. */
const putNewVersion = (version: Record<string, unknown>): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: version,
    ConditionExpression: 'attribute_not_exists(PK) OR attribute_exists(quarantine)',
  },
});

/** A new version (only if absent or held: the first failed condition), the template's update, and what changes along. */
export const insertVersion = (
  version: Record<string, unknown>,
  templateId: string,
  update: BuiltUpdate,
  along: TransactItem[],
): Promise<TransactResult> =>
  transactWrite([
    putNewVersion(version),
    { Update: { TableName: tableName(), Key: keys.template(templateId), ...update } },
    ...along,
  ]);

/** The listed templates per category (category-counts.ts), 7 small reads. */
export async function readCategoryCounts(): Promise<Record<Category, number>> {
  const found = await batchGet(CATEGORIES.map(keys.categoryCount));
  return Object.fromEntries(
    CATEGORIES.map((c) => [c, Number(found.get(keyString(keys.categoryCount(c)))?.['count'] ?? 0)]),
  ) as Record<Category, number>;
}

/** One page of a template list index (the lists, the featured heads, trending days, reindexing). */
export const templateListPage = (
  index: IndexDefinition,
  partition: string,
  request: Parameters<typeof readIndexPage>[2],
): Promise<IndexPage> => readIndexPage(index, partition, request);

/** The publish gate's protected names (gate.ts): one item, eventually consistent (a verification a second old may be missed once). */
export async function readProtectedEntries(): Promise<string[]> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: lifecycleKeys.protectedNames() }));
  const entries = Item?.['entries'] as Set<string> | undefined;
  return entries ? [...entries] : [];
}

/** Names added to (or taken from) the protected set: ADD/DELETE of a string set, so concurrent changes never lose one. */
export const protectedEntriesChange = (op: 'ADD' | 'DELETE', entries: string[]): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: lifecycleKeys.protectedNames(),
    UpdateExpression: op === 'ADD' ? 'ADD entries :e SET entity = :entity' : 'DELETE entries :e',
    ExpressionAttributeValues: {
      ':e': new Set(entries),
      ...(op === 'ADD' ? { ':entity': ENTITY.protectedNames } : {}),
    },
  },
});

/** A version held by the gate (only if absent, or held or rejected before: the author republishes it fixed), the template as read. */
export const insertHeldVersion = (
  version: Record<string, unknown>,
  templateId: string,
  currentRead: string,
  along: TransactItem[],
): Promise<TransactResult> =>
  transactWrite([
    putNewVersion(version),
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.template(templateId),
        ConditionExpression: '#cur = :current',
        ExpressionAttributeNames: { '#cur': 'version' },
        ExpressionAttributeValues: { ':current': currentRead },
      },
    },
    ...along,
  ]);
