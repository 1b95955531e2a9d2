/**
 * POST /moderation/actions (operators only). Every action is one audit item (audit.ts), written in
 * the same transaction as the change it records where there is one:
 * - hide / restore a template: out of (back into) every list, search and the category counts, and
 *   unseen by anyone but its author and operators while hidden (find-template.ts canSee);
 * - hide / restore a review: out of (back into) the template's review list, its rating and count;
 * - dismiss: the item's open reports are closed, nothing else changes;
 * - verify_author / unverify_author: the author's keys and templates carry the flag;
 * - release / reject what the publish gate holds (held.ts).
 * Hide and dismiss close the item's open reports (after the change: a report filed meanwhile stays open).
 */
import { setUserVerified } from '../../accounts/key-lifecycle.ts';
import type { Caller } from '../../core/caller.ts';
import { notFound } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import * as keys from '../../store/key-builders.ts';
import { lifecycleKeys, listPartitions } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { INDEXES } from '../../store/table.ts';
import { alongLost, alongRefused, type CommitAlong } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import { refreshRatingKey } from '../reviews/rating.ts';
import { readReview } from '../reviews/store.ts';
import { categoryCountChanges } from '../templates/category-counts.ts';
import { protectAuthor } from '../templates/gate.ts';
import { commitTemplateUpdate, readTemplate, templatesInOrder, updateTemplateIf } from '../templates/store.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import type { ModerationAction } from './action-item.ts';
import { decideHeld } from './held.ts';
import { requireOperator } from './operators.ts';
import type { ModerationInput } from './schemas.ts';
import {
  closeReport,
  commitReviewModeration,
  openReportsOf,
  putActionItem,
  recordAction,
  setReportsClosed,
  templateIdsOfAuthor,
} from './store.ts';

/**
 * `along`: the request's Idempotency-Key answer, committed with the action; `amend`: that answer
 * replaced, with the count of the reports the action closed after it.
 */
export async function moderate(
  caller: Caller,
  input: ModerationInput,
  along?: CommitAlong<ModerationAction>,
  amend?: CommitAlong<ModerationAction>,
): Promise<ModerationAction> {
  requireOperator(caller);
  const base = (): ModerationAction => ({
    id: newUuid(),
    action: input.action,
    operator: { id: caller.userId, name: caller.name },
    template_id: input.template_id ?? null,
    reviewer_id: input.reviewer_id ?? null,
    author_id: input.author_id ?? null,
    version: input.version ?? null,
    reason: input.reason,
    changed: false,
    reports_closed: 0,
    created_at: nowIso(),
  });
  let action: ModerationAction;
  if (input.action === 'verify_author' || input.action === 'unverify_author') {
    action = await setAuthorVerified(input.author_id!, input.action === 'verify_author', base(), along);
  } else if (input.action === 'release' || input.action === 'reject') {
    action = await decideHeld(input.template_id!, input.version, input.action, base(), along);
  } else if (input.action === 'dismiss') {
    await existingItem(input.template_id!, input.reviewer_id);
    action = base();
    await recordAction(action, along?.(action));
  } else if (input.reviewer_id !== undefined) {
    action = await setReviewHidden(input.template_id!, input.reviewer_id, input.action === 'hide', base, along);
  } else {
    action = await setTemplateHidden(input.template_id!, input.action === 'hide', base, along);
  }
  if (input.action === 'hide' || input.action === 'dismiss') {
    const closed = await closeOpenReports(
      lifecycleKeys.reportTarget(input.template_id!, input.reviewer_id),
      input.action,
    );
    if (closed > 0) {
      action = { ...action, reports_closed: closed };
      await setReportsClosed(action.id, closed, amend?.(action));
    }
  }
  return action;
}

async function existingItem(templateId: string, reviewerId: string | undefined): Promise<void> {
  if (!(await readTemplate(templateId, true))) throw notFound('Template');
  if (reviewerId !== undefined && !(await readReview(templateId, reviewerId))) throw notFound('Review');
}

/** The list partitions and category counter move with the flag, on the condition of the revision read. */
async function setTemplateHidden(
  templateId: string,
  hidden: boolean,
  base: () => ModerationAction,
  along?: CommitAlong<ModerationAction>,
): Promise<ModerationAction> {
  return optimistic(async () => {
    const before = await readTemplate(templateId, true);
    if (!before) throw notFound('Template');
    const action = base();
    if ((before.hidden === true) === hidden) {
      await recordAction(action, along?.(action));
      return action;
    }
    const after: TemplateItem = { ...before, hidden, rev: before.rev + 1 };
    if (!hidden) delete after.hidden;
    const partitions = listPartitions(after);
    const update = buildUpdate(
      {
        set: { ...(hidden ? { hidden: true, hidden_reason: action.reason } : {}), ...partitions.set },
        add: { rev: 1 },
        remove: [...partitions.remove, ...(hidden ? [] : ['hidden', 'hidden_reason'])],
      },
      { condition: '#rev = :rev', names: { '#rev': 'rev' }, values: { ':rev': before.rev } },
    );
    const changed = { ...action, changed: true };
    const alongItems = along?.(changed) ?? [];
    const result = await commitTemplateUpdate(templateId, update, [
      ...categoryCountChanges(before, after),
      putActionItem(changed),
      ...alongItems,
    ]);
    if (result.ok) return changed;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    return RETRY;
  });
}

/**
 * A hidden review leaves the review list (its GSI1 entry moves to the hidden partition, which only
 * its writer and operators are shown, reviews.ts) and the rating: its rating and the count are
 * taken back in the same transaction, on the condition that it was not hidden already, so
 * concurrent hides take it back once. Restoring does the reverse.
 */
async function setReviewHidden(
  templateId: string,
  reviewerId: string,
  hidden: boolean,
  base: () => ModerationAction,
  along?: CommitAlong<ModerationAction>,
): Promise<ModerationAction> {
  const review = await readReview(templateId, reviewerId);
  if (!review) throw notFound('Review');
  const action = base();
  const changed = { ...action, changed: true };
  const rating = Number(review['rating']);
  const reviewUpdate = hidden
    ? buildUpdate(
        {
          set: {
            hidden: true,
            hidden_reason: action.reason,
            [INDEXES.gsi1.partitionKey]: keys.hiddenReviewsIndexPk(templateId),
          },
        },
        // `hidden` is a reserved word, so it goes behind a placeholder.
        { condition: 'attribute_exists(PK) AND attribute_not_exists(#hidden)', names: { '#hidden': 'hidden' } },
      )
    : buildUpdate(
        {
          set: keys.reviewsIndex(templateId, review['created_at'] as string, review['id'] as string),
          remove: ['hidden', 'hidden_reason'],
        },
        { condition: 'attribute_exists(#hidden)', names: { '#hidden': 'hidden' } },
      );
  const alongItems = along?.(changed) ?? [];
  const result = await commitReviewModeration(
    templateId,
    reviewerId,
    reviewUpdate,
    rating,
    hidden ? -1 : 1,
    changed,
    alongItems,
  );
  if (!result.ok) {
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    // Already in that state: nothing changed, and the action is recorded all the same.
    await recordAction(action, along?.(action));
    return action;
  }
  await refreshRatingKey(templateId);
  return changed;
}

/** The flag on the author's keys (what they publish next) and on each template they published. */
async function setAuthorVerified(
  authorId: string,
  verified: boolean,
  action: ModerationAction,
  along?: CommitAlong<ModerationAction>,
) {
  if (!(await setUserVerified(authorId, verified))) throw notFound('Author');
  const templateIds = await templateIdsOfAuthor(authorId);
  await Promise.all(
    templateIds.map((templateId) =>
      updateTemplateIf(templateId, {
        UpdateExpression: 'SET #author.#verified = :verified',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#author': 'author', '#verified': 'verified' },
        ExpressionAttributeValues: { ':verified': verified },
      }),
    ),
  );
  // The publish gate's protected names: the author's name (as their templates carry it) and their slugs.
  const templates = await templatesInOrder(templateIds);
  const name = templates[0]?.author.name;
  const names = protectAuthor(
    verified,
    authorId,
    name ?? '',
    templates.map((t) => t.slug),
  );
  const changed = { ...action, changed: true };
  await recordAction(changed, [
    ...(name !== undefined || templates.length > 0 ? [names] : []),
    ...(along?.(changed) ?? []),
  ]);
  return changed;
}

async function closeOpenReports(target: string, resolution: string): Promise<number> {
  const now = nowIso();
  const open = await openReportsOf(target);
  const closed = await Promise.all(open.map((report) => closeReport(report, resolution, now)));
  return closed.filter(Boolean).length;
}
