/**
 * The deliveries, newest first: when, the kind (a replay marked ↻), the event and contract ids,
 * status, attempts and the last answer; filters by status and kind; per delivery its attempts and
 * the payload as POSTed, and retry. On a phone each row is a card (style.css), so nothing scrolls
 * sideways.
 */
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type { Delivery, DeliveryDetail, DeliveryStatus } from '../../client/types/index.ts';
import { badge, byId, h, show, when } from '../shared/dom.ts';
import { act } from './actions.ts';
import { lastAnswer, newestFirst } from './answer-text.ts';

const COLUMNS = ['Created', 'Kind', 'Event', 'Contract', 'Status', 'Attempts', 'Last answer', 'Next attempt', ''];

/** A cell with its column's name, which the phone layout shows beside the value. */
const cell = (label: string, ...content: Parameters<typeof h>[2][]) => h('td', { 'data-label': label }, ...content);

export function deliveriesSection(
  client: MarketplaceClient,
  agentId: string,
  kinds: readonly string[],
  afterChange: () => Promise<void> = async () => {},
): () => Promise<void> {
  const filters: { status: DeliveryStatus | ''; kind: string } = { status: '', kind: '' };
  const opened = new Set<string>();

  const render = async (): Promise<void> => {
    const page = await client.deliveries.list(agentId, {
      limit: 50,
      ...(filters.status ? { status: filters.status } : {}),
    });
    const rows = newestFirst(page.data.filter((d) => !filters.kind || d.event_type === filters.kind));
    const details = await Promise.all(
      rows.filter((d) => opened.has(d.id)).map((d) => client.deliveries.get(agentId, d.id)),
    );
    const statusSelect = h(
      'select',
      { id: 'filter-status', name: 'status' },
      ['', 'pending', 'succeeded', 'failed'].map((s) =>
        h('option', { value: s, selected: s === filters.status }, s || 'any status'),
      ),
    );
    const kindSelect = h(
      'select',
      { id: 'filter-kind', name: 'kind' },
      h('option', { value: '' }, 'any kind'),
      kinds.map((k) => h('option', { value: k, selected: k === filters.kind }, k)),
    );
    show(
      byId('deliveries-body'),
      h(
        'form',
        {
          class: 'row',
          id: 'delivery-filters',
          onsubmit: (event: Event) => {
            event.preventDefault();
            filters.status = statusSelect.value as DeliveryStatus | '';
            filters.kind = kindSelect.value;
            void act(
              async () => `Deliveries shown: ${filters.status || 'any status'}, ${filters.kind || 'any kind'}.`,
              render,
            );
          },
        },
        h('label', { for: 'filter-status' }, 'Status', statusSelect),
        h('label', { for: 'filter-kind' }, 'Kind', kindSelect),
        h('button', { type: 'submit' }, 'Filter'),
        h(
          'button',
          {
            type: 'button',
            id: 'refresh',
            onclick: () => act(async () => 'Deliveries refreshed.', render, afterChange),
          },
          'Refresh',
        ),
      ),
      rows.length === 0
        ? h('p', { class: 'muted', id: 'delivery-table' }, 'No deliveries.')
        : h(
            'table',
            { id: 'delivery-table', class: 'stacked' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                COLUMNS.map((c) => h('th', { scope: 'col' }, c)),
              ),
            ),
            h(
              'tbody',
              {},
              rows.map((d) =>
                rowsOf(
                  d,
                  details.find((x) => x.id === d.id),
                ),
              ),
            ),
          ),
    );
  };

  const rowsOf = (d: Delivery, detail: DeliveryDetail | undefined): HTMLElement[] => {
    const toggle = () => {
      if (opened.has(d.id)) opened.delete(d.id);
      else opened.add(d.id);
      return render();
    };
    const retry = () =>
      act(
        async () => {
          await client.deliveries.retry(agentId, d.id, d.status === 'succeeded' ? { force: true } : {});
          return `Delivery ${d.id} queued for another attempt.`;
        },
        render,
        afterChange,
      );
    const row = h(
      'tr',
      { 'data-delivery': d.id, 'data-status': d.status, 'data-replay': String(d.replay), 'data-created': d.created_at },
      cell('Created', when(d.created_at)),
      cell('Kind', d.event_type, d.replay ? h('span', { class: 'replay-mark' }, ' ↻ replay') : null),
      cell('Event', h('code', {}, d.event_id)),
      cell('Contract', d.contract_id ? h('code', {}, d.contract_id) : '—'),
      cell('Status', badge(d.status)),
      cell('Attempts', String(d.attempts)),
      cell('Last answer', lastAnswer(d)),
      cell('Next attempt', when(d.next_attempt_at)),
      h(
        'td',
        { class: 'row actions' },
        h(
          'button',
          { type: 'button', 'aria-expanded': String(detail !== undefined), onclick: () => void toggle() },
          'Attempts and payload',
        ),
        h(
          'button',
          { type: 'button', class: 'retry', onclick: () => void retry() },
          d.status === 'succeeded' ? 'Send again' : 'Retry',
        ),
      ),
    );
    if (!detail) return [row];
    return [
      row,
      h('tr', { class: 'detail' }, h('td', { colspan: COLUMNS.length }, attemptsOf(detail), payloadOf(detail))),
    ];
  };

  return render;
}

function attemptsOf(detail: DeliveryDetail): HTMLElement {
  return h(
    'table',
    { class: 'attempts stacked' },
    h('caption', {}, `Attempts of ${detail.id}`),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['#', 'Started', 'Answer', 'Took', 'Response'].map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      detail.attempts.map((a) =>
        h(
          'tr',
          {},
          cell('#', String(a.attempt)),
          cell('Started', when(a.started_at)),
          cell(
            'Answer',
            a.status_code === null ? (a.error ?? '—') : `HTTP ${a.status_code}${a.error ? ` (${a.error})` : ''}`,
          ),
          cell('Took', `${a.duration_ms} ms`),
          cell('Response', a.response_body === null ? '—' : h('pre', {}, a.response_body)),
        ),
      ),
    ),
  );
}

function payloadOf(detail: DeliveryDetail): HTMLElement {
  return h(
    'div',
    { class: 'payload' },
    h('h4', {}, 'Payload'),
    detail.payload === null
      ? h('p', { class: 'muted' }, 'Not kept for this delivery (made before deliveries kept their event).')
      : h('pre', { class: 'payload-json' }, JSON.stringify(detail.payload, null, 2)),
  );
}
