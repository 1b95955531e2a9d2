import { createAgent } from '../../lib/agents/agents.ts';
import type { AgentView } from '../../lib/agents/model.ts';
import { createAgentBody } from '../../lib/agents/schemas.ts';
import { BASE_PATHS } from '../../lib/core/settings.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';

const answer = (agent: AgentView) => created(agent, `${BASE_PATHS.agents}/agents/${agent.id}`);

export const handler = httpRoute({ body: createAgentBody }, async ({ caller, body, sealAnswer }) =>
  answer(await createAgent(caller, body, sealAnswer(answer))),
);
