/**
 * POST /reports (any key holder) and GET /reports (operators: the open ones, newest first).
 * A report is keyed by its item and its reporter, and put on the condition that no open report
 * of theirs is there: one open report per reporter and item, whatever the concurrency. Filing is
 * rate limited per user (REPORT_LIMITS), so one key cannot flood the operators' list.
 */
import type { Caller } from '../../core/caller.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import { REPORT_LIMITS } from '../../core/settings.ts';
import { nowIso } from '../../core/time.ts';
import { takeWindowSlot } from '../../limits/window-limit.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import type { CommitAlong } from '../../store/transact.ts';
import type { PageQuery } from '../request-schemas.ts';
import { readReview } from '../reviews/store.ts';
import { visibleTemplate } from '../templates/find-template.ts';
import { requireOperator } from './operators.ts';
import { type Report, reportItem, toReport } from './report-item.ts';
import type { ReportInput } from './schemas.ts';
import { openReportsPage, putReport, readReport } from './store.ts';

const reportExists = () => new AppError('report_exists', 'You already have an open report of this item.');

export async function createReport(caller: Caller, input: ReportInput, along?: CommitAlong<Report>): Promise<Report> {
  const template = await visibleTemplate(input.template_id, caller);
  const target = lifecycleKeys.reportTarget(template.id, input.reviewer_id);
  if (input.reviewer_id !== undefined) {
    const review = await readReview(template.id, input.reviewer_id);
    if (!review || (review['hidden'] === true && !caller.operator)) throw notFound('Review');
  }
  // A second report of the same item is refused before it takes one of the reporter's slots.
  if ((await readReport(target, caller.userId))?.['status'] === 'open') throw reportExists();
  await takeWindowSlot({
    key: lifecycleKeys.reportLimit(caller.userId),
    entity: ENTITY.reportLimit,
    ...REPORT_LIMITS,
    refusal: `A user may file ${REPORT_LIMITS.perWindow} reports per ${REPORT_LIMITS.windowMs / 60_000} minutes; try again later.`,
  });
  const report: Report = {
    id: newUuid(),
    template_id: template.id,
    reviewer_id: input.reviewer_id ?? null,
    reporter_id: caller.userId,
    reason: input.reason,
    text: input.text,
    status: 'open',
    created_at: nowIso(),
  };
  if (!(await putReport(reportItem(report), along?.(report)))) throw reportExists();
  return report;
}

export async function listOpenReports(caller: Caller, query: PageQuery) {
  requireOperator(caller);
  const page = await openReportsPage(query);
  return { data: page.entries.map(toReport), next_cursor: page.next_cursor };
}
