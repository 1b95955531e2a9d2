/**
 * A published version tells its template's installers (`template.version.published`, with the
 * computed diff from the version it follows) and moves their installs by policy
 * (policy-upgrade.ts): the notice's first page commits with the version, so a version is never
 * published without it, and the pages go through the notice gate like deprecations and yanks.
 */

import type { Caller } from '../../core/caller.ts';
import { newUuid } from '../../core/ids.ts';
import type { CommitAlong } from '../../store/transact.ts';
import type { VersionInput } from '../request-schemas.ts';
import { publishVersion } from '../templates/publish-version.ts';
import { diffSchemas, diffSummary } from '../templates/schema-diff.ts';
import type { TemplateItem, toTemplate } from '../templates/template-item.ts';
import { putNoticePage } from './notice-page.ts';

export const publishedNotice = (before: TemplateItem, after: TemplateItem) => {
  const diff = diffSchemas(before.schema, after.schema);
  return putNoticePage({
    template_id: after.id,
    notice_id: newUuid(),
    page: 0,
    type: 'template.version.published',
    data: {
      template_id: after.id,
      template_name: after.name,
      version: after.version,
      previous_version: before.version,
      summary: diffSummary(diff),
      breaking: diff.breaking,
    },
    created_at: after.updated_at,
  });
};

/** POST /templates/:id/versions: the version, and its notice to the installers in the same transaction. */
export const publishVersionAndTell = (
  idOrSlug: string,
  input: VersionInput,
  caller: Caller,
  along?: CommitAlong<ReturnType<typeof toTemplate>>,
) => publishVersion(idOrSlug, input, caller, along, (before, after) => [publishedNotice(before, after)]);
