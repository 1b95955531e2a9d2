/**
 * The bound on a template's version notices (docs/limits.md, "Version notices and changes per template"): the relay starts at
 * most VERSION_NOTICES.perWindow notices of one template per window, so an installer's agent hears
 * at most that many of it per window however often its versions change. A notice past that waits
 * for the window's end as the template's due notice of its kind and version (a later one replaces
 * it: the latest state wins), and a delayed queue message (notice-flush.ts) starts the waiting
 * notices then, with the state they have at that moment. Nothing is lost: each version's final
 * state of each kind is told, a window late (more windows when more kinds and versions wait than
 * one window starts).
 *
 * Across instances and skewed clocks: the window is the limiter's conditional window
 * (lib/limits/window-limit.ts), keyed by notice id so a stream record run again is not counted
 * twice; the flush's delay adds the skew tolerance, so an in-bound clock sees the window over when it
 * comes (and if not, the notice waits again and another flush is armed: nothing locks up).
 */
import { setting } from '../../core/environment.ts';
import { FUTURE_TOLERANCE_MS, VERSION_NOTICES } from '../../core/settings.ts';
import { tryWindowSlot } from '../../limits/window-limit.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import { sendNoticeFlush } from './notice-flush-queue.ts';
import type { NoticePage } from './notice-page.ts';
import { dropSupersededDue, markFlushArmed, putDueNotice, readGate } from './store.ts';

export const noticeWindowMs = (): number => setting('NOTICE_WINDOW_SECONDS') * 1000;

/** True when the notice may start now; otherwise it was set to wait and a flush is on its way. */
export async function admitNotice(page: NoticePage, now: () => number = Date.now): Promise<boolean> {
  const windowMs = noticeWindowMs();
  const answer = await tryWindowSlot(
    {
      key: lifecycleKeys.noticeGate(page.template_id),
      entity: ENTITY.noticeGate,
      perWindow: VERSION_NOTICES.perWindow,
      windowMs,
    },
    now,
    page.notice_id,
  );
  if (answer.taken) {
    await dropSupersededDue(page);
    return true;
  }
  const put = await putDueNotice({ page, waits_for: answer.windowStart });
  // Refused: a newer notice of this kind and version waits already; its flush is armed.
  if (!put.ok && !put.reasons.includes('ConditionalCheckFailed')) throw new Error('notice not set to wait');
  // Read after the wait is recorded: a flush that cleared its mark before then had not seen due_seq move.
  if ((await readGate(page.template_id))?.['flush_for'] !== answer.windowStart) {
    // Sent before it is marked: a mark without a message would strand the notice; two messages only flush twice.
    const delayMs = answer.windowEnds - now() + FUTURE_TOLERANCE_MS;
    await sendNoticeFlush({ template_id: page.template_id, window_start: answer.windowStart }, delayMs);
    await markFlushArmed(page.template_id, answer.windowStart);
  }
  return false;
}
