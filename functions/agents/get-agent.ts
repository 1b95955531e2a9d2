import { getAgentView } from '../../lib/agents/agents.ts';
import { agentIdParams } from '../../lib/agents/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params }) =>
  ok(await getAgentView(caller, params.id)),
);
