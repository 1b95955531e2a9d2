/**
 * The portal page, in two views (views.ts): the overview, health first (health.ts), then the
 * deliveries (deliveries.ts), the webhook with its status and a verify button, the signing secret
 * (secret.ts), the AWS destinations (destinations.ts), the content filters
 * (filter.ts), replay a window and the agent's feed live
 * over SSE; and the reference, the event kinds with their schemas and examples (kinds.ts). It works only with a portal link's token
 * (`#agent=…&token=…`), kept for the tab's session and taken out of the address bar at once.
 */
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type { Agent, ConfigureWebhookInput, EventTypeList } from '../../client/types/index.ts';
import { clientFor, fromFragment, problem } from '../shared/api.ts';
import { badge, byId, h, show, when } from '../shared/dom.ts';
import { act, refused } from './actions.ts';
import { deliveriesSection } from './deliveries.ts';
import { destinationsSection } from './destinations.ts';
import { filtersSection } from './filter.ts';
import { healthSection } from './health.ts';
import { kindChoices } from './kind-choices.ts';
import { renderKinds } from './kinds.ts';
import { rateLimitText } from './rate-limit.ts';
import { renderSecret } from './secret.ts';
import { setUpViews } from './views.ts';

type Kind = EventTypeList['data'][number];
type ContractKind = ConfigureWebhookInput['events'][number];

let client: MarketplaceClient;
let agentId: string;
let kinds: Kind[] = [];
/** The deliveries and the health drawn from them: redrawn together after anything that sends. */
let renderDeliveries: () => Promise<void> = async () => {};
const openedAt = new Date().toISOString();

async function start(): Promise<void> {
  setUpViews();
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
    const renderHealth = healthSection(client, agentId);
    const renderList = deliveriesSection(
      client,
      agentId,
      kinds.map((k) => k.type),
      renderHealth,
    );
    renderDeliveries = async () => {
      await Promise.all([renderList(), renderHealth()]);
    };
    await Promise.all([renderWebhook(), renderDestinations(), renderDeliveries(), filtersSection(client, agentId)()]);
    renderSecret(client, agentId);
    renderKinds(kinds);
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
      h(
        'button',
        { type: 'button', id: 'verify', onclick: () => act(verify, renderWebhook, () => renderDeliveries()) },
        'Verify endpoint',
      ),
      h(
        'button',
        { type: 'button', id: 'send-test', onclick: () => act(sendTest, () => renderDeliveries()) },
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
          void act(
            async () => {
              const { replayed } = await client.events.replay(agentId, {
                since: new Date(since.value).toISOString(),
                ...(until.value ? { until: new Date(until.value).toISOString() } : {}),
              });
              return `Replay started: ${replayed} event${replayed === 1 ? '' : 's'} will be sent again.`;
            },
            () => renderDeliveries(),
          );
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
