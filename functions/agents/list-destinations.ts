import { agentIdParams } from '../../lib/agents/schemas.ts';
import { listDestinations } from '../../lib/events/destinations.ts';
import { ok } from '../../lib/http/responses.ts';
import { httpRoute } from '../../lib/http/stack.ts';

export const handler = httpRoute({ params: agentIdParams }, async ({ caller, params }) =>
  ok(await listDestinations(caller, params.id)),
);
