import { h } from '../../shared/dom.ts';
import { markdown } from '../../shared/markdown.ts';
import type { TemplateSection } from './context.ts';

/** The author's description, its Markdown rendered (web/shared/markdown.ts: text nodes only). */
export const description: TemplateSection = ({ template: t }) =>
  h(
    'section',
    { id: 'description', 'aria-labelledby': 'description-title' },
    h('h3', { id: 'description-title' }, 'About'),
    t.description.trim() ? markdown(t.description) : h('p', { class: 'muted' }, 'No description.'),
  );
