import type { Caller } from '../../core/caller.ts';
import { AppError, validationError } from '../../core/errors.ts';
import { nowIso } from '../../core/time.ts';
import { listPartitions } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { alongLost, alongRefused, type CommitAlong, type TransactItem } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import type { VersionInput } from '../request-schemas.ts';
import type { Quarantine } from './answer.ts';
import { categoryCountChanges } from './category-counts.ts';
import { authoredTemplate } from './find-template.ts';
import { gateCheck, quarantineOf } from './gate.ts';
import { insertHeldVersion, insertVersion, versionStored } from './store.ts';
import { type TemplateItem, toTemplate, versionEntryOf } from './template-item.ts';
import { compareVersions } from './version.ts';
import { newestVersions, VERSIONS_SHOWN, versionItem } from './versions.ts';

const versionExists = (v: string) => new AppError('version_exists', `Version ${v} already exists.`);

/**
 * POST /templates/:id/versions (author only). The version item ("does not exist") and the
 * template's current version ("is still the one read") change together, so two concurrent
 * publishes of versions cannot both become current.
 */
export async function publishVersion(
  idOrSlug: string,
  input: VersionInput,
  caller: Caller,
  along?: CommitAlong<ReturnType<typeof toTemplate>>,
  /** Items that commit with the version, made from the template before it (the installers' notice, lib/marketplace/lifecycle). */
  withVersion: (before: TemplateItem, after: TemplateItem) => TransactItem[] = () => [],
) {
  return optimistic(async () => {
    const template = await authoredTemplate(idOrSlug, caller);
    const order = compareVersions(input.version, template.version);
    if (order === 0) throw versionExists(input.version);
    if (order < 0) {
      if (await versionStored(template.id, input.version)) throw versionExists(input.version);
      throw validationError([
        { path: 'version', message: `Must be greater than the current version ${template.version}.` },
      ]);
    }
    const now = nowIso();
    const held = quarantineOf(await gateCheck({ schema: input.schema, changelog: input.changelog }, caller), now);
    if (held) return holdVersion(template, input, held, now, along);
    const updated: TemplateItem = { ...template, version: input.version, schema: input.schema, updated_at: now };
    delete updated.current_deprecation;
    delete updated.all_yanked;
    const version = versionItem(template.id, input.version, input.changelog ?? '', input.schema, now);
    // The answer is made before the commit, to commit with it: the new version leads the ones before it.
    const answer = toTemplate(
      updated,
      // Without the held entry a fixed republish of this version replaces.
      [
        versionEntryOf(version),
        ...(await newestVersions(template.id)).filter((v) => v.version !== input.version),
      ].slice(0, VERSIONS_SHOWN),
    );
    const alongItems = along?.(answer) ?? [];
    const result = await insertVersion(version, template.id, currentVersionUpdate(template, updated), [
      // A template whose every version was yanked is listed again with a new one.
      ...categoryCountChanges(template, updated),
      ...withVersion(template, updated),
      ...alongItems,
    ]);
    if (result.ok) return answer;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    if (result.reasons[0] === 'ConditionalCheckFailed') throw versionExists(input.version);
    return RETRY;
  });
}

/**
 * The new version becomes current: not deprecated, and not yanked (a template whose versions were
 * all yanked is listed again, so this takes the revision read too and moves its list partitions).
 */
function currentVersionUpdate(before: TemplateItem, after: TemplateItem) {
  const relisted = before.all_yanked === true;
  const partitions = listPartitions(after);
  return buildUpdate(
    {
      set: {
        version: after.version,
        schema: after.schema,
        updated_at: after.updated_at,
        ...(relisted ? partitions.set : {}),
      },
      ...(relisted ? { add: { rev: 1 } } : {}),
      remove: ['current_deprecation', 'all_yanked', ...(relisted ? partitions.remove : [])],
    },
    {
      condition: relisted ? '#cur = :current AND #rev = :rev' : '#cur = :current',
      names: { '#cur': 'version', ...(relisted ? { '#rev': 'rev' } : {}) },
      values: { ':current': before.version, ...(relisted ? { ':rev': before.rev } : {}) },
    },
  );
}

/** A version the gate holds: stored with its findings, the template unchanged (not current, not announced). */
async function holdVersion(
  template: TemplateItem,
  input: VersionInput,
  held: Quarantine,
  now: string,
  along?: CommitAlong<ReturnType<typeof toTemplate>>,
) {
  const version = {
    ...versionItem(template.id, input.version, input.changelog ?? '', input.schema, now),
    quarantine: held,
  };
  const answer = toTemplate(
    template,
    [versionEntryOf(version), ...(await newestVersions(template.id)).filter((v) => v.version !== input.version)].slice(
      0,
      VERSIONS_SHOWN,
    ),
  );
  const alongItems = along?.(answer) ?? [];
  const result = await insertHeldVersion(version, template.id, template.version, alongItems);
  if (result.ok) return answer;
  if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
  if (result.reasons[0] === 'ConditionalCheckFailed') throw versionExists(input.version);
  return RETRY;
}
