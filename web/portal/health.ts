/**
 * Health at a glance, first on the page: the webhook's status, its circuit, the share of the last
 * 24 hours' finished deliveries that succeeded, and the last failure with its reason. Read from the
 * agent and its deliveries (the newest pages, until one is older than 24 hours).
 */
import type { MarketplaceClient } from '../../client/marketplace-client.ts';
import type { Agent, Delivery } from '../../client/types/index.ts';
import { badge, byId, h, show, when } from '../shared/dom.ts';
import { lastAnswer, newestFirst } from './answer-text.ts';

const DAY_MS = 86_400_000;
const PAGE = 100;
const MAX_PAGES = 10;

async function lastDay(
  client: MarketplaceClient,
  agentId: string,
  since: string,
): Promise<{ list: Delivery[]; all: boolean }> {
  const list: Delivery[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await client.deliveries.list(agentId, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    list.push(...answer.data.filter((d) => d.created_at >= since));
    cursor = answer.next_cursor ?? undefined;
    if (!cursor || answer.data.every((d) => d.created_at < since)) return { list, all: true };
  }
  return { list, all: false };
}

function circuitWords(agent: Agent): string {
  const c = agent.webhook_circuit;
  if (c.state === 'open')
    return `✖ open: paused after ${c.failures} failed attempts in a row, until ${when(c.open_until)}`;
  if (c.state === 'probing')
    return `… probing: one attempt decides whether deliveries resume (${c.failures} failed in a row)`;
  const closed = c.failures > 0 ? `✔ closed (${c.failures} failed in a row so far)` : '✔ closed: delivering';
  // In doubt (docs/webhooks.md, "Backpressure"): capped until a batch is answered within 5 s.
  return c.max_requests_at_once === null
    ? closed
    : `${closed}; at most ${c.max_requests_at_once} requests at once for now`;
}

export function healthSection(client: MarketplaceClient, agentId: string): () => Promise<void> {
  return async () => {
    const since = new Date(Date.now() - DAY_MS).toISOString();
    const [agent, day] = await Promise.all([client.agents.get(agentId), lastDay(client, agentId, since)]);
    const succeeded = day.list.filter((d) => d.status === 'succeeded').length;
    const failed = day.list.filter((d) => d.status === 'failed').length;
    const pending = day.list.length - succeeded - failed;
    const finished = succeeded + failed;
    const lastFailure = newestFirst(day.list).find(
      (d) => d.status === 'failed' || d.last_error !== null || (d.last_status_code ?? 0) >= 300,
    );
    const rate = finished === 0 ? '—' : `${Math.round((succeeded / finished) * 1000) / 10} %`;
    show(
      byId('health-body'),
      h(
        'dl',
        { class: 'health', id: 'health-list' },
        h('dt', {}, 'Webhook'),
        h(
          'dd',
          { id: 'health-status' },
          badge(agent.webhook_status),
          agent.webhook_disabled_reason ? ` (${agent.webhook_disabled_reason})` : '',
        ),
        h('dt', {}, 'Success, last 24 h'),
        h(
          'dd',
          { id: 'health-rate' },
          h('strong', {}, rate),
          finished === 0
            ? ' no finished deliveries'
            : ` of ${finished} finished (${succeeded} succeeded, ${failed} failed)`,
          pending ? `; ${pending} pending` : '',
          day.all ? '' : ` (the newest ${day.list.length})`,
        ),
        h('dt', {}, 'Last failure'),
        h(
          'dd',
          { id: 'health-last-failure' },
          lastFailure
            ? `${when(lastFailure.created_at)} · ${lastFailure.event_type} · ${lastAnswer(lastFailure)}`
            : 'None in the last 24 h.',
        ),
        h('dt', {}, 'Circuit'),
        h('dd', { id: 'health-circuit' }, circuitWords(agent)),
      ),
    );
  };
}
