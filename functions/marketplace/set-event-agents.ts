import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { setEventAgents } from '../../lib/marketplace/lifecycle/event-agents.ts';
import { eventAgentsBody } from '../../lib/marketplace/lifecycle/schemas.ts';

/** PUT /installed/agents: replaces the list of the workspace's agents that receive template events. */
export const handler = httpRoute({ body: eventAgentsBody }, async ({ body, caller, sealAnswer }) =>
  ok(await setEventAgents(caller, body, sealAnswer(ok))),
);
