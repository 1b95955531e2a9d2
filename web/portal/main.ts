/**
 * The portal page: one agent's webhook with its status and a verify button, its AWS destinations
 * with theirs (destinations.ts), the event kinds to subscribe to with their schemas and an example
 * from the catalog, the deliveries with filters and each one's attempts, retry one, replay a window, send a test event, rotate the secret (with
 * the overlap shown) and the agent's feed live over SSE. It works only with a portal link's token
 * (`#agent=…&token=…`), kept for the tab's session and taken out of the address bar at once.
 */
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type {
  Agent,
  ConfigureWebhookInput,
  Delivery,
  DeliveryDetail,
  DeliveryStatus,
  EventTypeList,
} from '../../client/types/index.ts';
import { clientFor, fromFragment, problem } from '../shared/api.ts';
import { badge, byId, h, show, when } from '../shared/dom.ts';
import { act, refused } from './actions.ts';
import { destinationsSection } from './destinations.ts';
import { kindChoices } from './kind-choices.ts';
import { rateLimitText } from './rate-limit.ts';
import { exampleOf } from './schema-example.ts';

type Kind = EventTypeList['data'][number];
type ContractKind = ConfigureWebhookInput['events'][number];

const OVERLAPS: Array<[number, string]> = [
  [86_400, '24 hours (default)'],
  [3_600, '1 hour'],
  [0, 'none: the previous secret stops now'],
];

let client: MarketplaceClient;
let agentId: string;
let kinds: Kind[] = [];
const filters: { status: DeliveryStatus | ''; kind: string } = { status: '', kind: '' };
const opened = new Set<string>();
const openedAt = new Date().toISOString();

async function start(): Promise<void> {
  const session = fromFragment(['agent', 'token'], 'portal.session');
  if (!session?.['agent'] || !session['token']) {
    show(
      byId('main'),
      h('p', { class: 'notice' }, 'Open this page from a portal link: it carries the agent and its token.'),
    );
    return ready();
  }
  agentId = session['agent'];
  client = await clientFor(session['token']);
  try {
    kinds = (await client.eventTypes.list()).data;
    const renderDestinations = destinationsSection(
      client,
      agentId,
      kinds.filter((k) => k.configurable).map((k) => k.type),
    );
    await Promise.all([renderWebhook(), renderDestinations(), renderDeliveries()]);
    renderSecret();
    renderKinds();
    renderReplay();
    void follow();
  } catch (error) {
    refused(error);
  }
  ready();
}

function ready(): void {
  byId('main').setAttribute('aria-busy', 'false');
}

async function renderWebhook(): Promise<void> {
  const agent: Agent = await client.agents.get(agentId);
  document.title = `${agent.name} — Agent portal`;
  show(byId('title'), `Agent portal: ${agent.name}`);
  const url = h('input', {
    id: 'webhook-url',
    name: 'webhook_url',
    type: 'url',
    value: agent.webhook_url ?? '',
    required: true,
  });
  const choices = kindChoices(
    'Event kinds to receive',
    kinds.filter((k) => k.configurable).map((k) => k.type),
    agent.events,
  );
  show(
    byId('webhook-body'),
    h('p', {}, 'Status: ', h('span', { id: 'webhook-status' }, badge(agent.webhook_status))),
    h('p', {}, 'Endpoint: ', h('code', {}, agent.webhook_url ?? 'none')),
    h('p', { id: 'webhook-rate-limit' }, rateLimitText(agent.rate_limit)),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', id: 'verify', onclick: () => act(verify, renderWebhook) }, 'Verify endpoint'),
      h(
        'button',
        { type: 'button', id: 'send-test', onclick: () => act(sendTest, renderDeliveries) },
        'Send test event',
      ),
    ),
    h(
      'form',
      {
        id: 'webhook-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          const events = choices.chosen() as ContractKind[];
          void act(async () => {
            await client.agents.configureWebhook(agentId, { webhook_url: url.value.trim(), events });
            return 'Saved. Verify the endpoint to start deliveries.';
          }, renderWebhook);
        },
      },
      h('label', { for: 'webhook-url' }, 'Endpoint URL', url),
      choices.fieldset,
      h('button', { type: 'submit' }, 'Save webhook'),
    ),
  );
}

async function verify(): Promise<string> {
  const agent = await client.agents.verifyWebhook(agentId);
  return `Verified: the endpoint answered the challenge; the webhook is ${agent.webhook_status}.`;
}

async function sendTest(): Promise<string> {
  const { event_id } = await client.agents.sendTestEvent(agentId);
  return `Test event ${event_id} sent.`;
}

function renderSecret(): void {
  const shown = h('code', { id: 'secret-value' }, '••••••••');
  const overlap = h(
    'select',
    { id: 'overlap', name: 'overlap' },
    OVERLAPS.map(([seconds, label]) => h('option', { value: seconds }, label)),
  );
  const overlapNote = h('p', { id: 'overlap-note', class: 'muted' });
  show(
    byId('secret-body'),
    h('p', {}, 'Current secret: ', shown),
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          type: 'button',
          id: 'show-secret',
          onclick: () =>
            act(async () => {
              show(shown, (await client.agents.getWebhookSecret(agentId)).webhook_secret);
              return 'Secret shown.';
            }),
        },
        'Show secret',
      ),
    ),
    h(
      'form',
      {
        class: 'row',
        id: 'rotate-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          const seconds = Number(overlap.value);
          void act(async () => {
            const at = Date.now();
            const { webhook_secret } = await client.agents.rotateWebhookSecret(agentId, {
              expire_previous_in_seconds: seconds,
            });
            show(shown, webhook_secret);
            show(
              overlapNote,
              seconds === 0
                ? 'The previous secret no longer signs.'
                : `Overlap: deliveries carry signatures by both secrets until ${when(new Date(at + seconds * 1000).toISOString())}; after that only the new one.`,
            );
            return 'Secret rotated.';
          });
        },
      },
      h('label', { for: 'overlap' }, 'Previous secret keeps signing for', overlap),
      h('button', { type: 'submit' }, 'Rotate secret'),
    ),
    overlapNote,
  );
}

function renderKinds(): void {
  show(
    byId('kinds-body'),
    h(
      'ul',
      { id: 'kind-list' },
      kinds.map((k) =>
        h(
          'li',
          {},
          h('strong', {}, k.type),
          k.configurable ? '' : ' (always sent)',
          h('div', {}, k.description),
          h('details', {}, h('summary', {}, 'Example'), h('pre', {}, JSON.stringify(exampleOf(k.schema), null, 2))),
          h('details', {}, h('summary', {}, 'JSON Schema'), h('pre', {}, JSON.stringify(k.schema, null, 2))),
        ),
      ),
    ),
  );
}

async function renderDeliveries(): Promise<void> {
  const page = await client.deliveries.list(agentId, {
    limit: 50,
    ...(filters.status ? { status: filters.status } : {}),
  });
  const rows = page.data.filter((d) => !filters.kind || d.event_type === filters.kind);
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
    kinds.map((k) => h('option', { value: k.type, selected: k.type === filters.kind }, k.type)),
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
            renderDeliveries,
          );
        },
      },
      h('label', { for: 'filter-status' }, 'Status', statusSelect),
      h('label', { for: 'filter-kind' }, 'Kind', kindSelect),
      h('button', { type: 'submit' }, 'Filter'),
      h(
        'button',
        { type: 'button', id: 'refresh', onclick: () => act(async () => 'Deliveries refreshed.', renderDeliveries) },
        'Refresh',
      ),
    ),
    rows.length === 0
      ? h('p', { class: 'muted', id: 'delivery-table' }, 'No deliveries.')
      : h(
          'div',
          { class: 'scroll' },
          h(
            'table',
            { id: 'delivery-table' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Created', 'Kind', 'Status', 'Attempts', 'Last answer', 'Next attempt', ''].map((c) =>
                  h('th', { scope: 'col' }, c),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              rows.map((d) =>
                deliveryRows(
                  d,
                  details.find((x) => x.id === d.id),
                ),
              ),
            ),
          ),
        ),
  );
}

function deliveryRows(d: Delivery, detail: DeliveryDetail | undefined): HTMLElement[] {
  const toggle = () => {
    if (opened.has(d.id)) opened.delete(d.id);
    else opened.add(d.id);
    return renderDeliveries();
  };
  const retry = () =>
    act(async () => {
      await client.deliveries.retry(agentId, d.id, d.status === 'succeeded' ? { force: true } : {});
      return `Delivery ${d.id} queued for another attempt.`;
    }, renderDeliveries);
  const row = h(
    'tr',
    { 'data-delivery': d.id, 'data-status': d.status },
    h('td', {}, when(d.created_at)),
    h('td', {}, d.event_type),
    h('td', {}, badge(d.status)),
    h('td', {}, String(d.attempts)),
    h('td', {}, d.last_status_code === null ? (d.last_error ?? '—') : `HTTP ${d.last_status_code}`),
    h('td', {}, when(d.next_attempt_at)),
    h(
      'td',
      { class: 'row' },
      h(
        'button',
        { type: 'button', 'aria-expanded': String(detail !== undefined), onclick: () => void toggle() },
        'Attempts',
      ),
      h(
        'button',
        { type: 'button', class: 'retry', onclick: () => void retry() },
        d.status === 'succeeded' ? 'Send again' : 'Retry',
      ),
    ),
  );
  if (!detail) return [row];
  const attempts = h(
    'table',
    { class: 'attempts' },
    h('caption', {}, `Attempts of ${d.id}`),
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
          h('td', {}, String(a.attempt)),
          h('td', {}, when(a.started_at)),
          h(
            'td',
            {},
            a.status_code === null ? (a.error ?? '—') : `HTTP ${a.status_code}${a.error ? ` (${a.error})` : ''}`,
          ),
          h('td', {}, `${a.duration_ms} ms`),
          h('td', {}, a.response_body === null ? '—' : h('pre', {}, a.response_body)),
        ),
      ),
    ),
  );
  return [row, h('tr', {}, h('td', { colspan: 7 }, attempts))];
}

function renderReplay(): void {
  const local = (ms: number) => new Date(ms - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  const since = h('input', {
    id: 'replay-since',
    name: 'since',
    type: 'datetime-local',
    value: local(Date.now() - 3_600_000),
    required: true,
  });
  const until = h('input', { id: 'replay-until', name: 'until', type: 'datetime-local' });
  show(
    byId('replay-body'),
    h(
      'p',
      { class: 'muted' },
      'Every event of the window goes to the endpoint again, as new deliveries with the same event ids.',
    ),
    h(
      'form',
      {
        class: 'row',
        id: 'replay-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void act(async () => {
            const { replayed } = await client.events.replay(agentId, {
              since: new Date(since.value).toISOString(),
              ...(until.value ? { until: new Date(until.value).toISOString() } : {}),
            });
            return `Replay started: ${replayed} event${replayed === 1 ? '' : 's'} will be sent again.`;
          }, renderDeliveries);
        },
      },
      h('label', { for: 'replay-since' }, 'From', since),
      h('label', { for: 'replay-until' }, 'Until (empty: now)', until),
      h('button', { type: 'submit' }, 'Replay'),
    ),
  );
}

/**
 * The agent's feed over SSE from the page's opening on (`since` a time rather than `now`, so an
 * event made while the stream connects is not missed); each event also refreshes the delivery list.
 */
async function follow(): Promise<void> {
  const list = h('ol', { id: 'feed-list', reversed: true });
  const state = h('p', { id: 'feed-state', class: 'muted' }, 'New events appear here as they happen.');
  show(byId('feed-body'), state, list);
  try {
    for await (const streamed of client.events.stream(agentId, { since: openedAt, reconnect: true })) {
      const e = streamed.data;
      list.prepend(h('li', {}, `${when(e.created_at)} · `, h('strong', {}, e.type), ` · ${e.id}`));
      void renderDeliveries().catch(() => undefined);
    }
  } catch (error) {
    show(state, `The live feed stopped: ${problem(error)}`);
  }
}

void start();
