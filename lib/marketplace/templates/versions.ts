import * as keys from '../../store/key-builders.ts';
import { ENTITY } from '../../store/keys.ts';
import { newestVersionEntries } from './store.ts';
import type { VersionEntry } from './template-item.ts';
import type { TemplateSchema } from './template-schema.ts';
import { sortableVersion } from './version.ts';

/** One item per published version (with its schema, so a contract can pin the version it used). */
export function versionItem(
  templateId: string,
  version: string,
  changelog: string,
  schema: TemplateSchema,
  now: string,
) {
  return {
    ...keys.version(templateId, sortableVersion(version)),
    entity: ENTITY.version,
    template_id: templateId,
    version,
    changelog,
    schema,
    created_at: now,
  };
}

/** Details show at most this many versions, newest first. */
export const VERSIONS_SHOWN = 100;

export const newestVersions = (templateId: string): Promise<VersionEntry[]> =>
  newestVersionEntries(templateId, VERSIONS_SHOWN);
