import type { TemplateSummary } from '../../client/types/index.ts';
import { h } from '../shared/dom.ts';
import { installs, stars } from './stars.ts';

/** A list of template cards; `empty` says what an empty list means there. */
export function cards(templates: readonly TemplateSummary[], id: string, empty = 'None yet.'): HTMLElement {
  if (templates.length === 0) return h('p', { id, class: 'muted' }, empty);
  return h(
    'ul',
    { id, class: 'cards' },
    templates.map((t) =>
      h(
        'li',
        {},
        h('a', { href: `#/t/${encodeURIComponent(t.slug)}` }, t.name),
        h(
          'div',
          { class: 'muted' },
          `${t.category} · v${t.version} · by ${t.author.name}${t.author.verified ? ' ✔ verified' : ''}`,
        ),
        h('div', {}, t.description),
        h(
          'div',
          { class: 'muted' },
          `${installs(t.stats.installs)} · `,
          stars(t.stats.rating_avg, t.stats.rating_count),
        ),
      ),
    ),
  );
}
