/**
 * A version notice (a deprecation or a yank) told to a template's installers, one page of
 * installers at a time: the page item's INSERT reaches the relay through the table stream (its
 * `deliver` flag passes the relay's filter, as a replay page does), the relay tells the page's
 * workspaces (notices.ts) and writes the next page. So a template installed by a million
 * workspaces is told in bounded steps, each resumable.
 */
import { expiresAt } from '../../core/event-retention.ts';
import { tableName } from '../../store/client.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import type { TransactItem } from '../../store/transact.ts';

export type NoticeType = 'template.version.deprecated' | 'template.version.yanked' | 'template.version.published';

/** The `data` of both events (docs/webhooks.md). */
export interface NoticeData {
  template_id: string;
  template_name: string;
  version: string;
  /** The deprecation message, or the yank's reason (may be empty). */
  message: string;
  /** The template's current version after the change; null when every version is yanked. */
  current_version: string | null;
}

/** A published version's notice (upgrade-on-publish.ts): each installer's `upgraded` is added when it is told. */
export interface PublishedNoticeData {
  template_id: string;
  template_name: string;
  version: string;
  previous_version: string;
  summary: string;
  breaking: boolean;
}

export interface NoticePage {
  template_id: string;
  notice_id: string;
  page: number;
  type: NoticeType;
  data: NoticeData | PublishedNoticeData;
  /** Exclusive start: the sort key of the last installer the previous page told. */
  after?: string;
  created_at: string;
}

export const noticePageItem = (page: NoticePage) => ({
  ...lifecycleKeys.notice(page.template_id, page.notice_id, page.page),
  entity: ENTITY.versionNotice,
  // The relay's stream filter passes items with `deliver = true` (lib/events/stream-filter.ts).
  deliver: true,
  ...page,
  expires_at: expiresAt(page.created_at),
});

/** A page as a conditional put: a page run twice writes its successor once. */
export const putNoticePage = (page: NoticePage): TransactItem => ({
  Put: { TableName: tableName(), Item: noticePageItem(page), ConditionExpression: 'attribute_not_exists(PK)' },
});

export const noticePageOf = (image: Record<string, unknown>): NoticePage => ({
  template_id: image['template_id'] as string,
  notice_id: image['notice_id'] as string,
  page: Number(image['page']),
  type: image['type'] as NoticeType,
  data: image['data'] as NoticePage['data'],
  ...(typeof image['after'] === 'string' ? { after: image['after'] } : {}),
  created_at: image['created_at'] as string,
});
