import { deleteAgent } from '../../lib/agents/agents.ts';
import { agentIdParams } from '../../lib/agents/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { noContent } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params, sealAnswer }) => {
  await deleteAgent(caller, params.id, sealAnswer(noContent));
  return noContent();
});
