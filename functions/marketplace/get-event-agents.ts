import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';
import { getEventAgents } from '../../lib/marketplace/lifecycle/event-agents.ts';

/** GET /installed/agents: the workspace's agents that receive template events. */
export const handler = httpRoute({}, async ({ caller }) => ok(await getEventAgents(caller)));
