/**
 * The template a contract is made from, read from the stored template item (CONTRIBUTING.md
 * layout; lib/marketplace writes it). A private template is visible to its author only; for
 * everyone else it does not exist. The version is the one the caller names, else the one the
 * caller's workspace installed (its install's `version`, which upgrades move), else the current.
 */
import type { Caller } from '../core/caller.ts';
import { notFound } from '../core/errors.ts';
import { takeableVersion } from '../marketplace/installs/target-version.ts';
import { readInstallMarker } from '../marketplace/lifecycle/store.ts';
import { refuseYanked } from '../marketplace/lifecycle/yanked.ts';
import { canSee, findTemplate } from '../marketplace/templates/find-template.ts';
import type { DeclaredVariable, TemplateCheck } from '../marketplace/templates/variables.ts';

export interface TemplateForContract {
  id: string;
  version: string;
  /** The seller of every contract made from it: publishing a template is consent to contracts on it. */
  authorId: string;
  variables: DeclaredVariable[];
  checks: TemplateCheck[];
  /**
   * Made from a version other than the current one: the insert checks that version item instead of
   * the template's current version; `yankedKept` when it is the workspace's installed version, which
   * stays usable after a yank (as a lockfile keeps a yanked crate).
   */
  older?: { yankedKept: boolean };
}

export async function templateForContract(
  caller: Caller,
  templateIdOrSlug: string,
  consistent = false,
  namedVersion?: string,
): Promise<TemplateForContract> {
  const item = await findTemplate(templateIdOrSlug, consistent);
  if (!item || !canSee(item, caller)) throw notFound('Template');
  const installed = (await readInstallMarker(caller.workspaceId, item.id))?.['version'] as string | undefined;
  const wanted = namedVersion ?? installed ?? item.version;
  const base = { id: item.id, version: wanted, authorId: item.author.id };
  if (wanted === item.version && item.all_yanked !== true) {
    const schema = item.schema as { variables?: DeclaredVariable[]; checks?: TemplateCheck[] };
    return { ...base, variables: schema.variables ?? [], checks: schema.checks ?? [] };
  }
  if (wanted !== installed) refuseYanked(item);
  const stored = await takeableVersion(item.id, wanted, installed);
  return {
    ...base,
    variables: stored.schema.variables,
    checks: stored.schema.checks,
    older: { yankedKept: stored.yanked_at !== undefined },
  };
}
