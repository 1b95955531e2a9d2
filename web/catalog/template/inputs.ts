import type { TemplateCheck, TemplateVariable } from '../../../client/types/index.ts';
import { h } from '../../shared/dom.ts';
import { inline } from '../../shared/markdown.ts';
import type { TemplateSection } from './context.ts';

const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function variableRow(v: TemplateVariable): HTMLElement {
  const required = v.required !== false;
  return h(
    'tr',
    {},
    h('td', {}, h('code', {}, v.name)),
    h('td', {}, v.enum?.length ? `${v.type}: one of ${v.enum.join(', ')}` : v.type),
    h('td', {}, required ? 'required' : 'optional'),
    h('td', {}, v.default === undefined ? '—' : h('code', {}, shown(v.default))),
    h('td', {}, v.description ? inline(v.description) : '—'),
  );
}

function checkItem(c: TemplateCheck): HTMLElement {
  return h(
    'li',
    {},
    h('code', {}, c.id),
    ` (${c.type})`,
    c.description ? [': ', ...inline(c.description)] : null,
    h('div', { class: 'muted' }, 'Config: ', h('code', {}, JSON.stringify(c.config))),
  );
}

/** What a contract made from it needs: its variables (type, required, default) and the checks that use them. */
export const inputs: TemplateSection = ({ template: t }) =>
  h(
    'section',
    { id: 'inputs', 'aria-labelledby': 'inputs-title' },
    h('h3', { id: 'inputs-title' }, 'Inputs'),
    t.schema.variables.length === 0
      ? h('p', { class: 'muted' }, 'No variables: a contract needs only its amount.')
      : h(
          'div',
          { class: 'scroll' },
          h(
            'table',
            { id: 'variables' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Variable', 'Type', 'Required', 'Default', 'Description'].map((c) => h('th', { scope: 'col' }, c)),
              ),
            ),
            h('tbody', {}, t.schema.variables.map(variableRow)),
          ),
        ),
    h('h4', {}, `Checks (${t.schema.checks.length})`),
    t.schema.checks.length === 0
      ? h('p', { class: 'muted' }, 'No checks.')
      : h('ul', { id: 'checks' }, t.schema.checks.map(checkItem)),
  );
