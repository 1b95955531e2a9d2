import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import type { Report } from './answer.ts';

/** A report as operators see it (GET /reports; answer.ts). */
export type { Report };

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
  reason: item['reason'] as Report['reason'],
  text: item['text'] as string,
  status: item['status'] as Report['status'],
  created_at: item['created_at'] as string,
});
