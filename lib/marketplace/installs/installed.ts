import type { Caller } from '../../core/caller.ts';
import type { PageQuery } from '../request-schemas.ts';
import { canSee } from '../templates/find-template.ts';
import { newestTakeableBetween, templatesInOrder, versionItems } from '../templates/store.ts';
import { type TemplateItem, toSummary } from '../templates/template-item.ts';
import { lastInRange, policyOf, policyRange, type UpdatePolicy } from '../templates/update-policy.ts';
import { compareVersions } from '../templates/version.ts';
import type { InstallDrift, InstalledEntry } from './answer.ts';
import { installsPage } from './store.ts';

/**
 * GET /installed: the workspace's templates, most recently installed first, each with its install's
 * version, policy and drift. A template that has since gone private to someone else is left out
 * (it is not theirs to see any more). Per install: one Query of the policy's range of version
 * keys, newest first (usually one item), and, only when the newest allowed is not the installed
 * version itself, the installed version's item in one BatchGetItem for the page (is it yanked?).
 */
export async function listInstalled(caller: Caller, query: PageQuery) {
  const page = await installsPage(caller.workspaceId, query);
  const markers = new Map(page.entries.map((e) => [e['template_id'] as string, e]));
  const templates = await templatesInOrder([...markers.keys()], (t) => canSee(t, caller));
  const allowed = await Promise.all(
    templates.map((t) => {
      const m = markers.get(t.id)!;
      return newestAllowedOf(t.id, m['version'] as string, policyOf(m));
    }),
  );
  const unknown = templates.filter((t, i) => allowed[i] !== markers.get(t.id)!['version']);
  const items = await versionItems(
    unknown.map((t) => ({ templateId: t.id, version: markers.get(t.id)!['version'] as string })),
  );
  const yanked = new Set(unknown.filter((_, i) => items[i]?.['yanked_at'] !== undefined).map((t) => t.id));
  const data: InstalledEntry[] = templates.map((t, i) => ({
    ...toSummary(t),
    installation: drift(t, markers.get(t.id)!, allowed[i], yanked.has(t.id)),
  }));
  return { data, next_cursor: page.next_cursor };
}

export async function newestAllowedOf(templateId: string, version: string, policy: UpdatePolicy) {
  const range = policyRange(policy, version);
  return newestTakeableBetween(templateId, range.from, lastInRange(range));
}

function drift(
  t: TemplateItem,
  marker: Record<string, unknown>,
  newestAllowed: string | undefined,
  yanked: boolean,
): InstallDrift {
  const version = marker['version'] as string;
  return {
    version,
    policy: policyOf(marker),
    installed_at: marker['installed_at'] as string,
    version_yanked: yanked,
    newest_allowed: newestAllowed ?? null,
    newest: t.version,
    behind: compareVersions(version, t.version) < 0,
  };
}
