/**
 * Operators decide what the publish gate holds (lib/marketplace/templates/gate.ts), each decision an
 * audit item in the change's own transaction, as every moderation action is:
 * - `release` of a template (no `version`): its first version was held; the template leaves
 *   quarantine and hiding and is listed (on the condition of the revision read, as hide and restore);
 * - `release` of a later `version`: it leaves quarantine; newer than the current version, it becomes
 *   current (conditional on the current version read) and its installers hear of it and move by
 *   policy, as on a publish (lifecycle/publish-notice.ts);
 * - `reject`: the hold stays, marked `rejected`; only the author sees it, and may publish again.
 */
import { AppError, notFound } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import { listPartitions } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { alongLost, alongRefused, type CommitAlong, type TransactItem } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import { publishedNotice } from '../lifecycle/publish-notice.ts';
import { readVersion } from '../lifecycle/store.ts';
import { categoryCountChanges } from '../templates/category-counts.ts';
import { protectSlug } from '../templates/gate.ts';
import { commitTemplateUpdate, readTemplate } from '../templates/store.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import { compareVersions } from '../templates/version.ts';
import type { ModerationAction } from './action-item.ts';
import { heldVersionChange, putActionItem } from './store.ts';

const notHeld = () => new AppError('invalid_transition', 'Nothing of this is held by the publish gate.');

export async function decideHeld(
  templateId: string,
  version: string | undefined,
  decision: 'release' | 'reject',
  action: ModerationAction,
  along?: CommitAlong<ModerationAction>,
): Promise<ModerationAction> {
  return optimistic(async () => {
    const before = await readTemplate(templateId, true);
    if (!before) throw notFound('Template');
    const changed = { ...action, changed: true };
    const alongItems = along?.(changed) ?? [];
    const target = version ?? (before.quarantine ? before.version : undefined);
    if (!target) throw notHeld();
    const stored = await readVersion(templateId, target);
    if (!stored) throw notFound('Version');
    if (!stored.quarantine) throw notHeld();
    const now = nowIso();
    const versionItem = heldVersionChange(templateId, target, decision);
    const items =
      version === undefined || (target === before.version && before.quarantine !== undefined)
        ? templateDecision(before, decision, now)
        : laterVersionDecision(before, target, stored.schema, decision, now);
    const result = await commitTemplateUpdate(templateId, items.update, [
      versionItem,
      ...items.along,
      putActionItem(changed),
      ...alongItems,
    ]);
    if (result.ok) return changed;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    return RETRY;
  });
}

/** The template's first version held: released, it is listed; rejected, it stays hidden, marked. */
function templateDecision(before: TemplateItem, decision: 'release' | 'reject', now: string) {
  if (decision === 'reject') {
    return {
      update: buildUpdate(
        { set: { quarantine: { ...before.quarantine!, status: 'rejected' }, updated_at: now } },
        {
          condition: 'attribute_exists(quarantine) AND #rev = :rev',
          names: { '#rev': 'rev' },
          values: { ':rev': before.rev },
        },
      ),
      along: [] as TransactItem[],
    };
  }
  const after: TemplateItem = { ...before, rev: before.rev + 1, updated_at: now };
  delete after.hidden;
  delete after.hidden_reason;
  delete after.quarantine;
  const partitions = listPartitions(after);
  return {
    update: buildUpdate(
      {
        set: { ...partitions.set, updated_at: now },
        add: { rev: 1 },
        remove: [...partitions.remove, 'hidden', 'hidden_reason', 'quarantine'],
      },
      {
        condition: 'attribute_exists(quarantine) AND #rev = :rev',
        names: { '#rev': 'rev' },
        values: { ':rev': before.rev },
      },
    ),
    along: [
      ...categoryCountChanges(before, after),
      ...(before.author.verified ? [protectSlug(before.author.id, before.slug)] : []),
    ],
  };
}

/** A later version held: released and newer than the current, it becomes current and is announced. */
function laterVersionDecision(
  before: TemplateItem,
  version: string,
  schema: TemplateItem['schema'],
  decision: 'release' | 'reject',
  now: string,
) {
  const condition = {
    condition: '#cur = :current',
    names: { '#cur': 'version' },
    values: { ':current': before.version },
  };
  if (decision === 'reject' || compareVersions(version, before.version) <= 0) {
    return { update: buildUpdate({ set: { updated_at: before.updated_at } }, condition), along: [] as TransactItem[] };
  }
  const after: TemplateItem = { ...before, version, schema, updated_at: now };
  delete after.current_deprecation;
  delete after.all_yanked;
  const relisted = before.all_yanked === true;
  const partitions = listPartitions(after);
  return {
    update: buildUpdate(
      {
        set: { version, schema, updated_at: now, ...(relisted ? partitions.set : {}) },
        ...(relisted ? { add: { rev: 1 } } : {}),
        remove: ['current_deprecation', 'all_yanked', ...(relisted ? partitions.remove : [])],
      },
      condition,
    ),
    along: [...categoryCountChanges(before, after), publishedNotice(before, after)],
  };
}
