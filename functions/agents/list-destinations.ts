import { listDestinations } from '../../lib/events/destinations.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: agentParams }, async ({ caller, params }) =>
  ok(await listDestinations(caller, params.id)),
);
