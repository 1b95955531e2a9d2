import type { TemplateDetails } from '../../../client/types/index.ts';
import { h, when } from '../../shared/dom.ts';
import type { TemplateSection } from './context.ts';

type Version = TemplateDetails['versions'][number];

/** A version's state in words: what installing or contracting it means. */
export function versionState(v: Version, current: string): string {
  if (v.yanked_at) return `Yanked ${when(v.yanked_at)}: no new installs or contracts`;
  if (v.deprecated) return `Deprecated: ${v.deprecated.message} (still installable)`;
  return v.version === current ? 'Current: what an install gets' : 'Available';
}

export const versions: TemplateSection = ({ template: t }) =>
  h(
    'section',
    { id: 'versions-section', 'aria-labelledby': 'versions-title' },
    h('h3', { id: 'versions-title' }, `Versions (${t.versions.length})`),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { id: 'versions' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Version', 'Published', 'Changes', 'State'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          t.versions.map((v) =>
            h(
              'tr',
              {},
              h('td', {}, v.version),
              h('td', {}, when(v.created_at)),
              h('td', {}, v.changelog || '—'),
              h('td', {}, versionState(v, t.version)),
            ),
          ),
        ),
      ),
    ),
  );
