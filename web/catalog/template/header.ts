import { h } from '../../shared/dom.ts';
import { installs, stars } from '../stars.ts';
import type { TemplateSection } from './context.ts';

const day = (iso: string): string =>
  new Date(iso).toLocaleDateString('en', { year: 'numeric', month: 'short', day: 'numeric' });

/** Name, who made it, the counts a chooser looks at first, and when it last changed. */
export const header: TemplateSection = ({ template: t }) =>
  h(
    'div',
    { class: 'template-header' },
    h('p', {}, h('a', { href: '#/' }, '← All templates')),
    h('h2', { id: 'template-name' }, t.name),
    h(
      'p',
      { class: 'muted', id: 'template-meta' },
      `${t.category} · v${t.version} · by ${t.author.name}${t.author.verified ? ' ✔ verified' : ''}`,
    ),
    h(
      'p',
      { class: 'template-counts' },
      h('span', { id: 'install-count' }, installs(t.stats.installs)),
      ' · ',
      stars(t.stats.rating_avg, t.stats.rating_count),
      ' · ',
      h('span', { id: 'updated' }, h('time', { datetime: t.updated_at }, `Updated ${day(t.updated_at)}`)),
      ` · published ${day(t.created_at)}`,
    ),
    t.deprecated ? h('p', { class: 'notice' }, `Deprecated: ${t.deprecated}`) : null,
  );
