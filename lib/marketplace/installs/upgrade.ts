/**
 * POST /installed/:template/upgrade: moves the caller's install to the version named, or to the
 * newest version its policy (the one given, else its own) allows, and answers with the computed
 * diff from the version it left. Unlike upgrades by policy on publish, a caller may take a
 * breaking version (the diff says so) and may go down to an older one; never to a yanked one or
 * one in quarantine. The move is conditional on the version read (lifecycle/store.ts moveInstall).
 */
import type { Caller } from '../../core/caller.ts';
import { notFound } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { alongLost, alongRefused, type CommitAlong } from '../../store/transact.ts';
import {
  commitInstallMove,
  moveInstall,
  readInstallMarker,
  readVersion,
  versionStillTakeable,
} from '../lifecycle/store.ts';
import type { UpgradeInput } from '../request-schemas.ts';
import { visibleTemplate } from '../templates/find-template.ts';
import { diffSchemas } from '../templates/schema-diff.ts';
import { policyOf } from '../templates/update-policy.ts';
import type { Upgraded } from './answer.ts';
import { toInstallation } from './install.ts';
import { newestAllowedOf } from './installed.ts';
import { takeableVersion } from './target-version.ts';

export async function upgradeInstall(
  idOrSlug: string,
  input: UpgradeInput,
  caller: Caller,
  along?: CommitAlong<Upgraded>,
): Promise<Upgraded> {
  return optimistic(async (attempt) => {
    const template = await visibleTemplate(idOrSlug, caller, attempt > 1);
    const marker = await readInstallMarker(caller.workspaceId, template.id);
    if (!marker) throw notFound('Install');
    const from = marker['version'] as string;
    const policy = input.policy ?? policyOf(marker);
    const to = input.version ?? (await newestAllowedOf(template.id, from, policy)) ?? from;
    const [left, target] = await Promise.all([
      readVersion(template.id, from),
      to === from ? undefined : takeableVersion(template.id, to),
    ]);
    const changed = to !== from || policy !== policyOf(marker);
    const installation = toInstallation({ ...marker, version: to, policy });
    const answer: Upgraded = {
      installation,
      from_version: from,
      changed,
      diff: diffSchemas(left?.schema ?? template.schema, (target ?? left)?.schema ?? template.schema),
    };
    const alongItems = along?.(answer) ?? [];
    if (!changed && alongItems.length === 0) return answer;
    const result = await commitInstallMove([
      moveInstall(caller.workspaceId, template.id, { from, to, policy, by: 'request', at: nowIso() }),
      ...(to === from ? [] : [versionStillTakeable(template.id, to)]),
      ...alongItems,
    ]);
    if (result.ok) return answer;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    // Moved meanwhile (a publish's page, another request), or the target yanked: read again.
    return RETRY;
  });
}
