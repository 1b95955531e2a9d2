import type { EventTypeList } from '../../client/types/index.ts';
import { byId, h, show } from '../shared/dom.ts';
import { markdown } from '../shared/markdown.ts';
import { exampleOf } from './schema-example.ts';

type Kind = EventTypeList['data'][number];

/** The reference view: every kind, its description (Markdown rendered), an example and its JSON Schema. */
export function renderKinds(kinds: readonly Kind[]): void {
  show(
    byId('kinds-body'),
    h(
      'p',
      { class: 'muted' },
      'What each kind of event carries. The example is made from the kind’s schema (every one is valid against it).',
    ),
    h(
      'ul',
      { id: 'kind-list', class: 'kinds' },
      kinds.map((k) =>
        h(
          'li',
          { 'data-kind': k.type },
          h('h3', {}, h('code', {}, k.type), k.configurable ? '' : ' (always sent)'),
          markdown(k.description),
          h('p', { class: 'muted' }, `Schema version ${k.schema_version}.`),
          h(
            'details',
            {},
            h('summary', {}, 'Example'),
            h('pre', { class: 'example' }, JSON.stringify(exampleOf(k.schema, k), null, 2)),
          ),
          h('details', {}, h('summary', {}, 'JSON Schema'), h('pre', {}, JSON.stringify(k.schema, null, 2))),
        ),
      ),
    ),
  );
}
