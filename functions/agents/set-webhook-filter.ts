import { agentIdParams } from '../../lib/agents/schemas.ts';
import { setWebhookFilter } from '../../lib/agents/webhook-filter.ts';
import { noteFilterChanged } from '../../lib/events/feed/operational.ts';
import { filterChangeBody } from '../../lib/filters/grammar.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** PUT /api/v1/agents/:id/webhook/filter: the webhook's filter, recorded in the agent's feed (agent.filter.changed). */
export const handler = httpRoute(
  { params: agentIdParams, body: filterChangeBody },
  async ({ caller, params, body, sealAnswer }) => {
    const agent = await setWebhookFilter(caller, params.id, body, sealAnswer(ok));
    await noteFilterChanged(agent, { filter: agent.filter, neverMatches: agent.filter_never_matches });
    return ok(agent);
  },
);
