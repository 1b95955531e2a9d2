/**
 * The end of a notice window (notice-gate.ts): a delayed message on the delivery queue names the
 * template and the window; each notice that waited for it starts as a notice page with the state
 * its version has now (the latest state wins; a change taken back meanwhile is not told), and
 * goes through the gate like any notice. Notices that come to wait while the flush runs are seen
 * (the gate's `due_seq` moved, so the flush looks again); a failed flush is retried by the queue.
 */
import { newUuid } from '../../core/ids.ts';
import type { ReceivedMessage } from '../../events/delivery/queue.ts';
import { errorFields, log } from '../../observability/log.ts';
import { readTemplate } from '../templates/store.ts';
import { type NoticeFlush, noticeFlushOf } from './notice-flush-message.ts';
import type { NoticePage } from './notice-page.ts';
import { clearFlush, type DueNotice, dueNotices, readGate, readVersion, startDueNotice } from './store.ts';

const ROUNDS = 5;

export async function flushNotices(flush: NoticeFlush): Promise<void> {
  for (let round = 1; round <= ROUNDS; round++) {
    const dueSeq = ((await readGate(flush.template_id))?.['due_seq'] as number | undefined) ?? 0;
    // Notices waiting for a later window are that window's flush's (they waited again after this one's pages).
    const due = (await dueNotices(flush.template_id)).filter((d) => d.waits_for <= flush.window_start);
    for (const notice of due) await startDue(notice);
    const cleared = await clearFlush(flush.template_id, flush.window_start, dueSeq);
    if (cleared.ok || cleared.current?.['flush_for'] !== flush.window_start) return;
  }
  throw new Error('notices kept coming to wait while the flush ran');
}

async function startDue(due: DueNotice): Promise<void> {
  const result = await startDueNotice(due, await latestState(due.page));
  // Refused: a newer notice of that kind and version came to wait after the read; it is told instead.
  if (!result.ok && !result.reasons.includes('ConditionalCheckFailed')) throw new Error('waiting notice not started');
}

/** The notice as its version stands now, or undefined when what it told was taken back. */
async function latestState(page: NoticePage): Promise<NoticePage | undefined> {
  const [template, version] = await Promise.all([
    readTemplate(page.template_id, true),
    readVersion(page.template_id, page.data.version),
  ]);
  if (!template || !version) return undefined;
  const fresh = { template_id: page.template_id, notice_id: newUuid(), page: 0, type: page.type };
  if (!('message' in page.data)) {
    // A published version yanked meanwhile is not announced (its yank notice tells installers instead).
    if (version.yanked_at !== undefined) return undefined;
    return { ...fresh, data: { ...page.data, template_name: template.name }, created_at: page.created_at };
  }
  const message =
    page.type === 'template.version.deprecated' ? version.deprecated_message : version.yanked_at && page.data.message;
  if (message === undefined) return undefined;
  return {
    ...fresh,
    data: {
      ...page.data,
      template_name: template.name,
      message,
      current_version: template.all_yanked ? null : template.version,
    },
    // The change's own time: a notice that came to wait later still counts as newer.
    created_at: page.created_at,
  };
}

/** The queue's share: the flush messages of a delivery-queue batch; the ids of those that failed come back. */
export async function noticeFlushBatch(records: readonly ReceivedMessage[]): Promise<string[]> {
  const failed: string[] = [];
  for (const record of records) {
    try {
      await flushNotices(noticeFlushOf(record.body)!);
    } catch (err) {
      log.error('notice flush failed', { messageId: record.messageId, ...errorFields(err) });
      failed.push(record.messageId);
    }
  }
  return failed;
}

export const isNoticeFlush = (record: ReceivedMessage): boolean => noticeFlushOf(record.body) !== undefined;
