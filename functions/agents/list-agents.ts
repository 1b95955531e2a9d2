import { listAgents } from '../../lib/agents/agents.ts';
import { listAgentsQuery } from '../../lib/agents/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ query: listAgentsQuery }, async ({ caller, query }) =>
  ok(await listAgents(caller, query)),
);
