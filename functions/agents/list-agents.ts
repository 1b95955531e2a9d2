import { listAgents } from '../../lib/agents/agents.ts';
import { listAgentsQuery } from '../../lib/agents/schemas.ts';
import { ok } from '../../lib/http/responses.ts';
import { httpRoute } from '../../lib/http/stack.ts';

export const handler = httpRoute({ query: listAgentsQuery }, async ({ caller, query }) =>
  ok(await listAgents(caller, query)),
);
