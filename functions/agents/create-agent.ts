import { createAgent } from '../../lib/agents/agents.ts';
import { createAgentBody } from '../../lib/agents/schemas.ts';
import { created } from '../../lib/http/responses.ts';
import { httpRoute } from '../../lib/http/stack.ts';
import { AGENTS_BASE } from '../../lib/routes.ts';

export const handler = httpRoute({ body: createAgentBody }, async ({ caller, body }) => {
  const agent = await createAgent(caller, body);
  return created(agent, `${AGENTS_BASE}/agents/${agent.id}`);
});
