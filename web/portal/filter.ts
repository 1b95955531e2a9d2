/**
 * The portal's content filters (docs/webhooks.md, "Filters"): pick the webhook or a destination,
 * see and edit its filter as JSON, save it, and test it against the agent's newest event, which
 * says which clause failed and why. A filter that can never match is allowed and flagged. A refused
 * filter keeps the editor as typed and shows the grammar's message, naming the path, beside it.
 */
import { ApiError } from '../../client/errors.ts';
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type { Filter, FilterTest } from '../../client/types/index.ts';
import { problem } from '../shared/api.ts';
import { byId, h, show } from '../shared/dom.ts';
import { act } from './actions.ts';

const WEBHOOK = 'webhook';

interface Target {
  value: string;
  label: string;
  filter: Filter | null;
  never: boolean;
}

export function filtersSection(client: MarketplaceClient, agentId: string): () => Promise<void> {
  /** The subscription being edited: the webhook or a destination's id; kept across redraws. */
  let chosen = WEBHOOK;

  async function targets(): Promise<Target[]> {
    const [agent, { data }] = await Promise.all([client.agents.get(agentId), client.agents.listDestinations(agentId)]);
    return [
      { value: WEBHOOK, label: 'Webhook', filter: agent.filter, never: agent.filter_never_matches },
      ...data.map((d) => ({ value: d.id, label: d.arn, filter: d.filter, never: d.filter_never_matches })),
    ];
  }

  async function render(): Promise<void> {
    const all = await targets();
    const target = all.find((t) => t.value === chosen) ?? all[0]!;
    chosen = target.value;
    const select = h(
      'select',
      {
        id: 'filter-target',
        name: 'target',
        onchange: () => {
          chosen = select.value;
          void act(async () => `Editing the filter of ${select.selectedOptions[0]?.text}.`, render);
        },
      },
      all.map((t) => h('option', { value: t.value, selected: t.value === chosen }, t.label)),
    );
    const editor = h('textarea', { id: 'filter-json', name: 'filter', rows: 8, spellcheck: 'false' });
    editor.value = target.filter ? JSON.stringify(target.filter, null, 2) : '';
    const message = h('p', { id: 'filter-message', class: 'notice notice-error', role: 'alert', hidden: true });
    const result = h('div', { id: 'filter-result' });

    /** Runs a save or a test; a 400 (the grammar's refusal) is shown by the editor, not as the page's error. */
    const run = (what: (filter: Filter | null) => Promise<string>) =>
      act(async () => {
        message.hidden = true;
        let filter: Filter | null;
        try {
          filter = editor.value.trim() ? (JSON.parse(editor.value) as Filter) : null;
        } catch (error) {
          return refusedHere(message, `Not JSON: ${(error as Error).message}`);
        }
        try {
          return await what(filter);
        } catch (error) {
          if (error instanceof ApiError && error.status === 400) return refusedHere(message, problem(error));
          throw error;
        }
      });

    const save = async (filter: Filter | null): Promise<string> => {
      if (chosen === WEBHOOK) await client.agents.setWebhookFilter(agentId, filter);
      else await client.agents.setDestinationFilter(agentId, chosen, filter);
      await render();
      return filter
        ? 'Filter saved: it applies to events made from now on.'
        : 'Filter removed: every event of the subscribed kinds is sent.';
    };

    show(
      byId('filters-body'),
      h(
        'p',
        { class: 'muted' },
        'A filter sends only the events it matches, for example {"op": "gte", "path": "data.amount_cents", "value": 10000}. Empty: no filter. Testing with an empty editor tests the saved filter.',
      ),
      h('label', { for: 'filter-target' }, 'Subscription', select),
      target.never
        ? h(
            'p',
            { id: 'filter-warning', class: 'notice notice-error' },
            'filter_never_matches: no event of the subscribed kinds can pass this filter, so nothing is sent.',
          )
        : null,
      h('label', { for: 'filter-json' }, 'Filter (JSON)', editor),
      message,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', id: 'filter-save', onclick: () => run(save) }, 'Save filter'),
        h(
          'button',
          {
            type: 'button',
            id: 'filter-test',
            onclick: () =>
              run(async (filter) => {
                const tested = await client.agents.testFilter(agentId, {
                  ...(filter ? { filter } : {}),
                  ...(chosen === WEBHOOK ? {} : { destination_id: chosen }),
                });
                show(result, testText(tested));
                return tested.matched
                  ? 'The filter matches the newest event.'
                  : 'The filter does not match the newest event.';
              }),
          },
          'Test against the newest event',
        ),
      ),
      result,
    );
  }

  return render;
}

function refusedHere(message: HTMLElement, text: string): string {
  show(message, text);
  message.hidden = false;
  return 'The filter was refused: see the message by the editor.';
}

/** A test's answer in words: matched, or the clause that failed, where it stands, and why. */
function testText(t: FilterTest): HTMLElement {
  const event = t.event_id ? `Event ${t.event_id}` : 'The event';
  const never = t.never_matches
    ? h('p', { class: 'notice notice-error' }, 'filter_never_matches: no event of the subscribed kinds can pass it.')
    : null;
  if (!t.failed) return h('div', { 'data-matched': 'true' }, h('p', {}, `Matched: ${event} passes the filter.`), never);
  return h(
    'div',
    { 'data-matched': 'false' },
    h(
      'p',
      {},
      `Not matched: ${event} fails the clause at `,
      h('code', { class: 'failed-at' }, t.failed.at || '(root)'),
      '.',
    ),
    h('pre', { class: 'failed-clause' }, JSON.stringify(t.failed.clause)),
    h('p', { class: 'failed-reason' }, t.failed.reason),
    never,
  );
}
