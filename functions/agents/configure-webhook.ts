import { agentIdParams, configureWebhookBody } from '../../lib/agents/schemas.ts';
import { configureWebhook } from '../../lib/agents/webhook-config.ts';
import { noteFilterChanged } from '../../lib/events/feed/operational.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute(
  { params: agentIdParams, body: configureWebhookBody },
  async ({ caller, params, body, sealAnswer }) => {
    const agent = await configureWebhook(caller, params.id, body, sealAnswer(ok));
    // In the agent's operational events (docs/webhooks.md, "Filters"), after the change.
    if (body.filter !== undefined)
      await noteFilterChanged(agent, { filter: agent.filter, neverMatches: agent.filter_never_matches });
    return ok(agent);
  },
);
