/**
 * Upgrade by policy, one install at a time (run by the published notice's pages, notices.ts): the
 * install moves to the newest version its policy allows that is takeable (not yanked, not in
 * quarantine) and not breaking against the version it is at (schema-diff.ts); a breaking version
 * never moves an install by policy, a caller must ask for it (POST /installed/:template/upgrade).
 *
 * Under concurrent publishes each page resolves the target when it runs, not from the version it
 * announces, and the move is conditional on the version read: two pages that both find 1.2.0
 * move the install once (the second reads it at 1.2.0 and has nothing to do), and the target's
 * ConditionCheck keeps a version yanked meanwhile from ever being moved to.
 */
import { nowIso } from '../../core/time.ts';
import { diffSchemas } from '../templates/schema-diff.ts';
import { isTakeable, versionsBetween } from '../templates/store.ts';
import type { TemplateSchema } from '../templates/template-schema.ts';
import { lastInRange, policyOf, policyRange } from '../templates/update-policy.ts';
import { compareVersions } from '../templates/version.ts';
import { commitInstallMove, moveInstall, readInstallMarker, readVersion, versionStillTakeable } from './store.ts';

/** Versions of the policy's range a move reads at most, newest first (bounded: a long run of breaking ones stops it). */
export const POLICY_CANDIDATES = 10;
const ATTEMPTS = 3;

export type PolicyMove = { from: string; to: string } | null;

/** The newest non-breaking takeable version above `version` within its policy's range, if any. */
export async function policyTarget(templateId: string, marker: Record<string, unknown>): Promise<string | undefined> {
  const version = marker['version'] as string;
  const range = policyRange(policyOf(marker), version);
  const { items } = await versionsBetween(templateId, range.from, lastInRange(range), {
    limit: POLICY_CANDIDATES,
    consistent: true,
  });
  const newer = items.filter((v) => isTakeable(v) && compareVersions(v['version'] as string, version) > 0);
  if (newer.length === 0) return undefined;
  const at = items.find((v) => v['version'] === version) ?? (await readVersion(templateId, version));
  if (!at) return undefined;
  const schemaAt = at['schema'] as TemplateSchema;
  return newer.find((v) => !diffSchemas(schemaAt, v['schema'] as TemplateSchema).breaking)?.['version'] as
    | string
    | undefined;
}

/**
 * Moves the workspace's install by its policy for notice `by`; answers the move this notice made
 * (also when an earlier run of the same page made it), or null.
 */
export async function upgradeByPolicy(
  workspaceId: string,
  templateId: string,
  by: string,
  read?: Record<string, unknown>,
): Promise<PolicyMove> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const marker = attempt === 1 && read ? read : await readInstallMarker(workspaceId, templateId);
    if (!marker) return null;
    const last = marker['last_move'] as { by: string; from: string; to: string } | undefined;
    if (last?.by === by) return { from: last.from, to: last.to };
    const to = await policyTarget(templateId, marker);
    if (!to) return null;
    const from = marker['version'] as string;
    const result = await commitInstallMove([
      moveInstall(workspaceId, templateId, { from, to, policy: policyOf(marker), by, at: nowIso() }),
      versionStillTakeable(templateId, to),
    ]);
    if (result.ok) return { from, to };
    // Moved by another page or a request, or the target yanked meanwhile: read both again.
  }
  return null;
}
