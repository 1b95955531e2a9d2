import type { TemplateVariable } from '../../../client/types/index.ts';
import { copyText } from '../../shared/copy.ts';
import { h } from '../../shared/dom.ts';
import type { TemplateSection } from './context.ts';

/** A value of the variable's type for the example: its default, else its first choice, else a placeholder. */
function exampleValue(v: TemplateVariable): unknown {
  if (v.default !== undefined) return v.default;
  if (v.enum?.length) return v.enum[0];
  return { url: 'https://example.com', integer: 1, number: 1.5, boolean: true, string: '…' }[v.type];
}

/** The client call that makes a contract from this template (docs/client.md), required variables first. */
export function contractSnippet(templateId: string, variables: readonly TemplateVariable[], baseUrl: string): string {
  const ordered = [...variables].sort((a, b) => Number(b.required !== false) - Number(a.required !== false));
  const fields = ordered.map(
    (v) => `    ${v.name}: ${JSON.stringify(exampleValue(v))},${v.required === false ? ' // optional' : ''}`,
  );
  return [
    "import { MarketplaceClient } from '@template-marketplace/client';",
    '',
    `const client = new MarketplaceClient({ apiKey: process.env.MARKETPLACE_API_KEY, baseUrl: '${baseUrl}' });`,
    `const contract = await client.templates.instantiate('${templateId}', {`,
    fields.length ? ['  variables: {', ...fields, '  },'].join('\n') : '  variables: {},',
    '  amount_cents: 5000,',
    "  agent_id: 'agt_…', // the agent that receives its events",
    '});',
  ].join('\n');
}

/** The snippet, with a button that copies it. */
export const snippet: TemplateSection = ({ template: t, apiBase }) => {
  const text = contractSnippet(t.id, t.schema.variables, apiBase);
  const code = h('pre', { id: 'snippet' }, h('code', {}, text));
  return h(
    'section',
    { id: 'use', 'aria-labelledby': 'use-title' },
    h('h3', { id: 'use-title' }, 'Use it'),
    h('p', { class: 'muted' }, 'A contract from this template, with the TypeScript client:'),
    code,
    h('button', { type: 'button', id: 'copy-snippet', onclick: () => void copyText(code, text, 'Snippet') }, 'Copy'),
  );
};
