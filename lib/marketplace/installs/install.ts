import type { Caller } from '../../core/caller.ts';
import { InvariantError } from '../../core/errors.ts';
import * as keys from '../../store/key-builders.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { alongLost, alongRefused, type CommitAlong } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import { readInstallMarker, versionStillTakeable } from '../lifecycle/store.ts';
import { refuseYanked } from '../lifecycle/yanked.ts';
import type { InstallInput } from '../request-schemas.ts';
import { countStats } from '../stats/count.ts';
import { visibleTemplate } from '../templates/find-template.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import { policyOf, type UpdatePolicy } from '../templates/update-policy.ts';
import { bucketAttribute, moveToDay, utcDay } from '../trending/trend.ts';
import type { Installation } from './answer.ts';
import { commitInstall } from './store.ts';
import { takeableVersion } from './target-version.ts';

export type { Installation };
/** `created`: this install was the workspace's first (201), not one that found it installed (200). */
export type Installed = { created: boolean; installation: Installation };

/**
 * Installs into the caller's workspace. The marker's "does not exist" condition and the counters
 * are one transaction: the first install counts once (201), every later one, concurrent or
 * retried, finds the marker and counts nothing (200).
 */
export async function installTemplate(
  idOrSlug: string,
  caller: Caller,
  now = Date.now(),
  along?: CommitAlong<Installed>,
  input: InstallInput = { policy: 'minor' },
): Promise<Installed> {
  return optimistic(async (attempt) => {
    const template = await visibleTemplate(idOrSlug, caller, attempt > 1);
    refuseYanked(template);
    const named = input.version !== undefined && input.version !== template.version;
    if (named) await takeableVersion(template.id, input.version!);
    const version = named ? input.version! : template.version;
    const marker = installMarker(template, caller.workspaceId, new Date(now).toISOString(), version, input.policy);
    const installed: Installed = { created: true, installation: toInstallation(marker) };
    const alongItems = along?.(installed) ?? [];
    const result = await commitInstall(
      marker,
      template.id,
      counterUpdate(template, utcDay(now)),
      installerItem(template.id, caller, marker.installed_at),
      countStats(template.id, version, now, { installs: 1 }),
      [...(named ? [versionStillTakeable(template.id, version)] : []), ...alongItems],
    );
    if (result.ok) return installed;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    if (result.reasons[0] === 'ConditionalCheckFailed')
      return { created: false, installation: await existingInstallation(caller.workspaceId, template.id) };
    // The template changed under us (first install of a new day, or a visibility change), or the
    // named version was yanked since it was read: read both again.
    return RETRY;
  });
}

export function installMarker(
  template: Pick<TemplateItem, 'id' | 'version'>,
  workspaceId: string,
  installedAt: string,
  version = template.version,
  policy: UpdatePolicy = 'minor',
) {
  return {
    ...keys.install(workspaceId, template.id),
    entity: ENTITY.install,
    ...keys.installsIndex(workspaceId, installedAt, template.id),
    template_id: template.id,
    workspace_id: workspaceId,
    version,
    policy,
    installed_at: installedAt,
  };
}

export const installerItem = (templateId: string, caller: Caller, installedAt: string) => ({
  ...lifecycleKeys.installer(templateId, caller.workspaceId),
  entity: ENTITY.installer,
  template_id: templateId,
  workspace_id: caller.workspaceId,
  user_id: caller.userId,
  installed_at: installedAt,
});

/**
 * Counters by `ADD` (no read-modify-write, so concurrent installs never lose one). On a day the
 * template was already installed, the trending key is bumped the same way. The first install of
 * a new day recomputes it from the buckets read, drops buckets that left the window and moves the
 * template to today's trending partition; that path is conditional on the day and the key read,
 * so exactly one concurrent install takes it and the rest retry onto the cheap path.
 */
function counterUpdate(t: TemplateItem, clockDay: string) {
  const today = t.trend_day && t.trend_day > clockDay ? t.trend_day : clockDay; // never move back on a slower clock
  const add: Record<string, number> = { installs: 1, popKey: 1, [bucketAttribute(today)]: 1 };
  // The version installed is the current one, not yanked since it was read (lib/marketplace/lifecycle).
  const current = '#ver = :ver AND attribute_not_exists(all_yanked)';
  const names = { '#vis': 'visibility', '#day': 'trend_day', '#ver': 'version' };
  const read = { ':vis': t.visibility, ':ver': t.version };
  if (t.trend_day === today) {
    return buildUpdate(
      { add: { ...add, trendKey: 1 } },
      { condition: `#vis = :vis AND #day = :day AND ${current}`, names, values: { ...read, ':day': today } },
    );
  }
  const parts = { ...moveToDay(t, today, 1), add: { ...add, rev: 1 } };
  // `trendKey` too: an install on the old day (a slower clock) may bump it between our read and
  // this write, and the key recomputed from the buckets read would then drop that install.
  return t.trend_day
    ? buildUpdate(parts, {
        condition: `#vis = :vis AND #day = :day AND #key = :key AND ${current}`,
        names: { ...names, '#key': 'trendKey' },
        values: { ...read, ':day': t.trend_day, ':key': t.trendKey },
      })
    : buildUpdate(parts, {
        condition: `#vis = :vis AND attribute_not_exists(#day) AND ${current}`,
        names,
        values: read,
      });
}

async function existingInstallation(workspaceId: string, templateId: string): Promise<Installation> {
  const Item = await readInstallMarker(workspaceId, templateId);
  if (!Item) throw new InvariantError('install marker vanished');
  return toInstallation(Item);
}

export const toInstallation = (item: Record<string, unknown>): Installation => ({
  template_id: item['template_id'] as string,
  workspace_id: item['workspace_id'] as string,
  version: item['version'] as string,
  policy: policyOf(item),
  installed_at: item['installed_at'] as string,
});
