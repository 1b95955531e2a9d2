import { problem } from '../../shared/api.ts';
import { announce, h } from '../../shared/dom.ts';
import type { TemplateSection } from './context.ts';

/** Install, or that it is installed; an install redraws the page in place (the count, the state). */
export const install: TemplateSection = ({ client, template: t, redraw }) => {
  if (t.viewer.installed)
    return h(
      'p',
      { class: 'row', id: 'install-state' },
      h('span', { class: 'badge badge-enabled' }, '✔ Installed'),
      h('span', { class: 'muted' }, ' in your workspace; contracts can be made from it.'),
    );
  return h(
    'div',
    { class: 'row', id: 'install-state' },
    h(
      'button',
      {
        type: 'button',
        id: 'install',
        onclick: async (event: Event) => {
          const button = event.currentTarget as HTMLButtonElement;
          button.disabled = true;
          try {
            const installed = await client.templates.install(t.id);
            await redraw();
            announce(`Installed ${t.name} v${installed.version} in your workspace.`);
          } catch (error) {
            button.disabled = false;
            announce(problem(error), 'error');
          }
        },
      },
      'Install',
    ),
  );
};
