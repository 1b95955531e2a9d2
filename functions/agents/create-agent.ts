import { createAgent } from '../../lib/agents/agents.ts';
import { createAgentBody } from '../../lib/agents/schemas.ts';
import { created } from '../../lib/http/responses.ts';
import { httpRoute } from '../../lib/http/stack.ts';
import { BASE_PATHS } from '../../lib/core/settings.ts';

export const handler = httpRoute({ body: createAgentBody }, async ({ caller, body }) => {
  const agent = await createAgent(caller, body);
  return created(agent, `${BASE_PATHS.agents}/agents/${agent.id}`);
});
