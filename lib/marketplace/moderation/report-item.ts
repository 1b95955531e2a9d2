import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import type { ReportReason } from './schemas.ts';

/** A report as operators see it (GET /reports). */
export interface Report {
  id: string;
  template_id: string;
  /** Set when the report names a review: the review this user wrote of the template. */
  reviewer_id: string | null;
  reporter_id: string;
  reason: ReportReason;
  text: string;
  status: 'open' | 'closed';
  created_at: string;
}

/** Keyed by item and reporter (one open report per reporter and item), in the open-reports index while open. */
export function reportItem(report: Report) {
  return {
    ...lifecycleKeys.report(
      lifecycleKeys.reportTarget(report.template_id, report.reviewer_id ?? undefined),
      report.reporter_id,
    ),
    entity: ENTITY.report,
    ...lifecycleKeys.openReportsIndex(report.created_at, report.id),
    ...report,
  };
}

export const toReport = (item: Record<string, unknown>): Report => ({
  id: item['id'] as string,
  template_id: item['template_id'] as string,
  reviewer_id: (item['reviewer_id'] as string | null | undefined) ?? null,
  reporter_id: item['reporter_id'] as string,
  reason: item['reason'] as ReportReason,
  text: item['text'] as string,
  status: item['status'] as Report['status'],
  created_at: item['created_at'] as string,
});
