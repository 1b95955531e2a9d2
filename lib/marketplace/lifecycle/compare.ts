/**
 * GET /templates/:id/compare?from=&to=: the computed diff between two versions' schemas and the
 * changelogs between them. Either order: `from` newer than `to` is the diff backwards (what a
 * downgrade would change). A version in quarantine exists only for its author and operators.
 */
import type { Caller } from '../../core/caller.ts';
import { validationError } from '../../core/errors.ts';
import type { CompareQuery } from '../request-schemas.ts';
import type { VersionDiff } from '../templates/diff-answer.ts';
import { isAuthor, visibleTemplate } from '../templates/find-template.ts';
import { diffSchemas, diffSummary } from '../templates/schema-diff.ts';
import { changelogsBetween } from '../templates/store.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import { compareVersions } from '../templates/version.ts';
import { readVersion, type StoredVersion } from './store.ts';

/** Changelogs a compare answer carries at most (each at most 2,000 characters, docs/marketplace.md). */
export const CHANGELOGS_SHOWN = 100;

export async function compareVersionsOf(idOrSlug: string, query: CompareQuery, caller: Caller): Promise<VersionDiff> {
  const template = await visibleTemplate(idOrSlug, caller);
  const to = query.to ?? template.version;
  const [a, b] = await Promise.all([
    seenVersion(template, query.from, caller, 'from'),
    seenVersion(template, to, caller, 'to'),
  ]);
  const [low, high] = compareVersions(query.from, to) <= 0 ? [query.from, to] : [to, query.from];
  const seesQuarantine = isAuthor(template, caller) || caller.operator;
  const changelog =
    low === high
      ? []
      : (await changelogsBetween(template.id, low, high, CHANGELOGS_SHOWN))
          .filter((c) => seesQuarantine || !c.quarantined)
          .map(({ version, changelog }) => ({ version, changelog }));
  const diff = diffSchemas(a.schema, b.schema);
  return { template_id: template.id, from: query.from, to, summary: diffSummary(diff), changelog, diff };
}

/** A version the caller may see; one that does not exist for them is a 400 on the query field naming it. */
export async function seenVersion(
  template: TemplateItem,
  version: string,
  caller: Caller,
  field: string,
): Promise<StoredVersion> {
  const stored = await readVersion(template.id, version);
  const hidden = stored?.quarantine !== undefined && !isAuthor(template, caller) && !caller.operator;
  if (!stored || hidden) throw validationError([{ path: field, message: `This template has no version ${version}.` }]);
  return stored;
}
