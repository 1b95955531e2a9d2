/**
 * DynamoDB calls of the lifecycle room: one version item, the newest version not yanked, the
 * workspaces' chosen agents, the installers, and the notice gate (notice-gate.ts): the gate item
 * (`lifecycleKeys.noticeGate`: the window, the ids it admitted, `due_seq` and `flush_for`) and
 * the waiting notices (`lifecycleKeys.noticeDue`, one per kind and version).
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expiresAt } from '../../core/event-retention.ts';
import { db, tableName } from '../../store/client.ts';
import { conditionalDelete, conditionalUpdate } from '../../store/conditional.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
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
  /** The publish gate's findings while the version waits for an operator (lib/marketplace/templates/gate). */
  quarantine?: unknown;
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

/** The workspace's install marker of a template (lib/marketplace/installs writes it). */
export async function readInstallMarker(
  workspaceId: string,
  templateId: string,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.install(workspaceId, templateId), ConsistentRead: true }),
  );
  return Item;
}

/** A version a transaction moves an install to (or installs) is still there and not yanked when it commits. */
export const versionStillTakeable = (templateId: string, version: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: keys.version(templateId, sortableVersion(version)),
    ConditionExpression:
      'attribute_exists(PK) AND attribute_not_exists(yanked_at) AND attribute_not_exists(quarantine)',
  },
});

/**
 * An install moved from the version read to `to` (an upgrade, by request or by policy): only if it is
 * still at the version read, so two movers racing (two publishes' pages, a request) move it once;
 * `by` names what moved it (a notice id, or `request`), so a page run again knows its own move.
 */
export const moveInstall = (
  workspaceId: string,
  templateId: string,
  move: { from: string; to: string; policy: string; by: string; at: string },
): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: keys.install(workspaceId, templateId),
    UpdateExpression: 'SET #v = :to, #p = :policy, last_move = :move ADD moves :one',
    ConditionExpression: 'attribute_exists(PK) AND #v = :from',
    ExpressionAttributeNames: { '#v': 'version', '#p': 'policy' },
    ExpressionAttributeValues: {
      ':from': move.from,
      ':to': move.to,
      ':policy': move.policy,
      ':move': { by: move.by, from: move.from, to: move.to, at: move.at },
      ':one': 1,
    },
  },
});

/** The move and its target's check (versionStillTakeable) in one transaction, with what commits along. */
export const commitInstallMove = (items: TransactItem[]): Promise<TransactResult> => transactWrite(items);

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

/** A notice that waits for the end of window `waits_for` (ms). */
export interface DueNotice {
  page: NoticePage;
  waits_for: number;
}

const dueKey = (page: NoticePage) => lifecycleKeys.noticeDue(page.template_id, page.type, page.data.version);

export async function readGate(templateId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: lifecycleKeys.noticeGate(templateId), ConsistentRead: true }),
  );
  return Item;
}

/**
 * The notice waits (replacing an older one of its kind and version: the latest state wins) and the
 * gate's `due_seq` moves in the same transaction, so a flush that read the gate before this sees
 * its condition fail and looks again.
 */
export const putDueNotice = (due: DueNotice): Promise<TransactResult> =>
  transactWrite([
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...dueKey(due.page),
          entity: ENTITY.noticeDue,
          page: due.page,
          created_at: due.page.created_at,
          waits_for: due.waits_for,
          expires_at: expiresAt(due.page.created_at),
        },
        // Stream records of one template arrive in order; this keeps an older one from replacing a newer one anyway.
        ConditionExpression: 'attribute_not_exists(PK) OR created_at <= :created',
        ExpressionAttributeValues: { ':created': due.page.created_at },
      },
    },
    {
      Update: {
        TableName: tableName(),
        Key: lifecycleKeys.noticeGate(due.page.template_id),
        UpdateExpression: 'SET entity = :entity ADD due_seq :one',
        ExpressionAttributeValues: { ':entity': ENTITY.noticeGate, ':one': 1 },
      },
    },
  ]);

/** A notice that started supersedes the waiting one of its kind and version, if that is older. */
export const dropSupersededDue = (page: NoticePage) =>
  conditionalDelete({
    Key: dueKey(page),
    ConditionExpression: 'created_at <= :created',
    ExpressionAttributeValues: { ':created': page.created_at },
  });

/** Records that a flush for the window starting `windowStart` is on its way. */
export const markFlushArmed = (templateId: string, windowStart: number) =>
  conditionalUpdate({
    Key: lifecycleKeys.noticeGate(templateId),
    UpdateExpression: 'SET flush_for = :start, entity = :entity',
    ExpressionAttributeValues: { ':start': windowStart, ':entity': ENTITY.noticeGate },
  });

/**
 * The flush of window `windowStart` is done, unless another notice came to wait since it read
 * `due_seq` (then it looks again) or a later window's flush was armed meanwhile (which is then
 * that flush's to clear).
 */
export const clearFlush = (templateId: string, windowStart: number, dueSeq: number) =>
  conditionalUpdate({
    Key: lifecycleKeys.noticeGate(templateId),
    UpdateExpression: 'REMOVE flush_for',
    ConditionExpression: 'flush_for = :start AND (due_seq = :seq OR (attribute_not_exists(due_seq) AND :seq = :zero))',
    ExpressionAttributeValues: { ':start': windowStart, ':seq': dueSeq, ':zero': 0 },
  });

export async function dueNotices(templateId: string): Promise<DueNotice[]> {
  const items: DueNotice[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :due)',
        ExpressionAttributeValues: { ':pk': keys.template(templateId).PK, ':due': lifecycleKeys.noticeDuePrefix },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of res.Items ?? [])
      items.push({ page: item['page'] as NoticePage, waits_for: item['waits_for'] as number });
    startKey = res.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * The waiting notice starts as `page` (its latest state, a new notice id) and stops waiting, in one
 * transaction conditional on it being the one read: a newer one that came meanwhile stays.
 * `page` undefined: the change was taken back (nothing to tell), the notice only stops waiting.
 */
export const startDueNotice = (due: DueNotice, page: NoticePage | undefined): Promise<TransactResult> =>
  transactWrite([
    {
      Delete: {
        TableName: tableName(),
        Key: dueKey(due.page),
        ConditionExpression: 'created_at = :created',
        ExpressionAttributeValues: { ':created': due.page.created_at },
      },
    },
    ...(page ? [putNoticePage(page)] : []),
  ]);
