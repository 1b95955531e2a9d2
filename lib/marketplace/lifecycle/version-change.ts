/**
 * PATCH /templates/:id/versions/:version (author only): deprecate a version (with a message; still
 * installable) or yank it (no new installs or contracts of it; contracts made from it keep their
 * filled checks, which they carry). The template's current version is the newest one not yanked;
 * when every version is yanked the template leaves every list (isListed, lib/store/keys.ts).
 *
 * The version item, the template (current version, schema, list partitions, all on the condition
 * of the revision and version read) and the category counter change in one transaction, with the
 * first page of the notice to the installers (notice-page.ts), so no change goes untold and no
 * notice tells of a change that did not happen. A template takes VERSION_CHANGE_LIMITS changes per
 * window (429 beyond), and the relay starts at most VERSION_NOTICES of its notices per window
 * (notice-gate.ts): one request cannot make the service tell every installer without bound.
 */
import type { Caller } from '../../core/caller.ts';
import { notFound } from '../../core/errors.ts';
import { newUuid } from '../../core/ids.ts';
import { nowIso } from '../../core/time.ts';
import { takeVersionChangeSlot } from '../../limits/template-change-limits.ts';
import { tableName } from '../../store/client.ts';
import * as keys from '../../store/key-builders.ts';
import { listPartitions } from '../../store/keys.ts';
import { optimistic, RETRY } from '../../store/optimistic.ts';
import { alongLost, alongRefused, type CommitAlong, type TransactItem } from '../../store/transact.ts';
import { buildUpdate } from '../../store/update-expression.ts';
import { categoryCountChanges } from '../templates/category-counts.ts';
import { authoredTemplate } from '../templates/find-template.ts';
import { commitTemplateUpdate } from '../templates/store.ts';
import { type TemplateItem, versionEntryOf } from '../templates/template-item.ts';
import { sortableVersion } from '../templates/version.ts';
import type { VersionChanged } from './answer.ts';
import { type NoticePage, type NoticeType, putNoticePage } from './notice-page.ts';
import type { VersionChangeInput } from './schemas.ts';
import { newestUnyanked, readVersion, type StoredVersion } from './store.ts';

export type { VersionChanged };

export async function changeVersion(
  idOrSlug: string,
  version: string,
  input: VersionChangeInput,
  caller: Caller,
  along?: CommitAlong<VersionChanged>,
): Promise<VersionChanged> {
  let counted = false;
  return optimistic(async () => {
    const template = await authoredTemplate(idOrSlug, caller);
    const before = await readVersion(template.id, version);
    if (!before) throw notFound('Version');
    // Once per request, once it is known to name a version of the caller's (a 404 or 403 takes no slot).
    if (!counted) {
      await takeVersionChangeSlot(template.id);
      counted = true;
    }
    const now = nowIso();
    const after = changedVersion(before, input, now);
    const yanked = after.yanked_at !== undefined;
    const current = await newestUnyanked(template.id, { version, yanked });
    const templateAfter: TemplateItem = {
      ...template,
      ...(current ? { version: current.version, schema: current.schema } : {}),
      all_yanked: current === undefined,
      rev: template.rev + 1,
    };
    const partitions = listPartitions(templateAfter);
    const deprecation = current?.version === version ? after.deprecated_message : current?.deprecated_message;
    const templateUpdate = buildUpdate(
      {
        set: {
          ...(current ? { version: current.version, schema: current.schema } : {}),
          ...(current ? {} : { all_yanked: true }),
          ...(deprecation ? { current_deprecation: deprecation } : {}),
          updated_at: now,
          ...partitions.set,
        },
        add: { rev: 1 },
        remove: [
          ...partitions.remove,
          ...(current ? ['all_yanked'] : []),
          ...(deprecation ? [] : ['current_deprecation']),
        ],
      },
      {
        condition: '#rev = :rev AND #ver = :ver',
        names: { '#rev': 'rev', '#ver': 'version' },
        values: { ':rev': template.rev, ':ver': template.version },
      },
    );
    const notices = noticesOf(template, before, after, input, current?.version ?? null, now);
    const answer: VersionChanged = { ...versionEntryOf({ ...after }), current_version: current?.version ?? null };
    const alongItems = along?.(answer) ?? [];
    const result = await commitTemplateUpdate(template.id, templateUpdate, [
      versionUpdate(template.id, after),
      ...categoryCountChanges(template, templateAfter),
      ...notices.map(putNoticePage),
      ...alongItems,
    ]);
    if (result.ok) return answer;
    if (alongRefused(result.reasons, alongItems.length)) throw alongLost();
    return RETRY;
  });
}

function changedVersion(before: StoredVersion, input: VersionChangeInput, now: string): StoredVersion {
  const after: StoredVersion = { ...before };
  if (input.deprecated === null) {
    delete after.deprecated_message;
    delete after.deprecated_at;
  } else if (input.deprecated !== undefined && input.deprecated !== before.deprecated_message) {
    after.deprecated_message = input.deprecated;
    after.deprecated_at = now;
  }
  if (input.yanked === false) delete after.yanked_at;
  else if (input.yanked === true) after.yanked_at = before.yanked_at ?? now;
  return after;
}

function versionUpdate(templateId: string, v: StoredVersion): TransactItem {
  const set = { deprecated_message: v.deprecated_message, deprecated_at: v.deprecated_at, yanked_at: v.yanked_at };
  const update = buildUpdate({
    set,
    remove: Object.entries(set)
      .filter(([, value]) => value === undefined)
      .map(([name]) => name),
  });
  return { Update: { TableName: tableName(), Key: keys.version(templateId, sortableVersion(v.version)), ...update } };
}

/** One notice per kind that newly applies: a new deprecation message, a version newly yanked. */
function noticesOf(
  template: TemplateItem,
  before: StoredVersion,
  after: StoredVersion,
  input: VersionChangeInput,
  currentVersion: string | null,
  now: string,
): NoticePage[] {
  const page = (type: NoticeType, message: string): NoticePage => ({
    template_id: template.id,
    notice_id: newUuid(),
    page: 0,
    type,
    data: {
      template_id: template.id,
      template_name: template.name,
      version: after.version,
      message,
      current_version: currentVersion,
    },
    created_at: now,
  });
  const notices: NoticePage[] = [];
  if (after.deprecated_message !== undefined && after.deprecated_message !== before.deprecated_message) {
    notices.push(page('template.version.deprecated', after.deprecated_message));
  }
  if (after.yanked_at !== undefined && before.yanked_at === undefined) {
    notices.push(page('template.version.yanked', input.reason ?? ''));
  }
  return notices;
}
