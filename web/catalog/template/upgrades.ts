/**
 * The catalog's sections for template upgrades (issue 43), beside the details page (main.ts): the
 * drift of the workspace's install (its version and policy, the newest its policy allows, the newest
 * overall) with an upgrade button, and the computed diff between two versions with the changelogs
 * between them: one section of the page (index.ts), filled in once the workspace's installs are read.
 */
import type { MarketplaceClient } from '../../../client/marketplace-client.ts';
import type { InstalledTemplate, TemplateDetails, VersionDiff } from '../../../client/types/index.ts';
import { problem } from '../../shared/api.ts';
import { announce, h, show } from '../../shared/dom.ts';
import type { TemplateSection } from './context.ts';

export const upgrades: TemplateSection = ({ client, template }) => {
  const into = h('section', { id: 'upgrades' });
  upgradeSections(client, template, into).catch((error: unknown) => announce(problem(error), 'error'));
  return into;
};

/** The sections, filled into `into` once the workspace's installs are read. */
async function upgradeSections(client: MarketplaceClient, t: TemplateDetails, into: HTMLElement): Promise<void> {
  const drift = h('div', { id: 'drift' });
  const diff = h('div', { id: 'diff' });
  show(into, h('h3', {}, 'Your install'), drift, h('h3', {}, 'Compare versions'), comparer(client, t, diff), diff);
  await showDrift(client, t, drift);
}

async function installedOf(client: MarketplaceClient, id: string): Promise<InstalledTemplate | undefined> {
  for await (const installed of client.templates.iterateInstalled()) if (installed.id === id) return installed;
  return undefined;
}

async function showDrift(client: MarketplaceClient, t: TemplateDetails, into: HTMLElement): Promise<void> {
  const installed = await installedOf(client, t.id);
  if (!installed) return show(into, h('p', { class: 'muted' }, 'Not installed in your workspace.'));
  const i = installed.installation;
  const target = i.newest_allowed && i.newest_allowed !== i.version ? i.newest_allowed : undefined;
  show(
    into,
    h(
      'p',
      { id: 'drift-summary' },
      `v${i.version} (${i.policy})${i.version_yanked ? ', yanked since: still used for your contracts' : ''} · newest your policy allows: ${i.newest_allowed ? `v${i.newest_allowed}` : 'none'} · newest: v${i.newest}${i.behind ? ' · behind' : ' · up to date'}`,
    ),
    target
      ? h(
          'button',
          {
            type: 'button',
            id: 'upgrade',
            onclick: async () => {
              try {
                const moved = await client.templates.upgrade(t.id, { version: target });
                announce(`Upgraded to v${moved.installation.version}${moved.diff.breaking ? ' (breaking)' : ''}.`);
                await showDrift(client, t, into);
              } catch (error) {
                announce(problem(error), 'error');
              }
            },
          },
          `Upgrade to v${target}`,
        )
      : null,
  );
}

function comparer(client: MarketplaceClient, t: TemplateDetails, into: HTMLElement): HTMLElement {
  const versions = t.versions.filter((v) => v.quarantine === null).map((v) => v.version);
  const pick = (id: string, chosen: string | undefined) =>
    h(
      'select',
      { id, name: id },
      versions.map((v) => h('option', { value: v, selected: v === chosen }, v)),
    );
  const from = pick('compare-from', versions[1] ?? versions[0]);
  const to = pick('compare-to', versions[0]);
  return h(
    'form',
    {
      class: 'row',
      id: 'compare-form',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        try {
          showDiff(await client.templates.compare(t.id, { from: from.value, to: to.value }), into);
        } catch (error) {
          announce(problem(error), 'error');
        }
      },
    },
    h('label', { for: 'compare-from' }, 'From', from),
    h('label', { for: 'compare-to' }, 'To', to),
    h('button', { type: 'submit' }, 'Compare'),
  );
}

function showDiff(d: VersionDiff, into: HTMLElement): void {
  const side = (what: string, s: VersionDiff['diff']['variables']) =>
    h(
      'li',
      {},
      `${what}: added ${s.added.join(', ') || '—'}; removed ${s.removed.join(', ') || '—'}; changed ${
        s.changed.map((c) => `${c.name} (${c.fields.join(', ')})`).join(', ') || '—'
      }`,
    );
  show(
    into,
    h('p', { id: 'diff-summary', class: d.diff.breaking ? 'notice' : '' }, `v${d.from} → v${d.to}: ${d.summary}`),
    h('ul', {}, side('Variables', d.diff.variables), side('Checks', d.diff.checks)),
    d.diff.breaking
      ? h(
          'ul',
          { id: 'breaking' },
          d.diff.breaking_reasons.map((r) => h('li', {}, r)),
        )
      : null,
    // Changelogs are the authors' Markdown, shown as text (never as HTML).
    h('h4', {}, 'Changelog'),
    d.changelog.length === 0
      ? h('p', { class: 'muted' }, 'No versions between.')
      : h(
          'dl',
          { id: 'changelog' },
          d.changelog.flatMap((c) => [h('dt', {}, `v${c.version}`), h('dd', {}, c.changelog || '—')]),
        ),
  );
}
