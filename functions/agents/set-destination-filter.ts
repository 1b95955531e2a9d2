import { destinationParams } from '../../lib/destinations/schemas.ts';
import { setDestinationFilter } from '../../lib/events/destination-filter.ts';
import { filterChangeBody } from '../../lib/filters/grammar.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

/** PUT /api/v1/agents/:id/destinations/:destination_id/filter: the destination's filter, recorded in the agent's feed. */
export const handler = httpRoute(
  { params: destinationParams, body: filterChangeBody },
  async ({ caller, params, body, sealAnswer }) =>
    ok(await setDestinationFilter(caller, params.id, params.destination_id, body, sealAnswer(ok))),
);
