import { BASE_PATHS } from '../../lib/core/settings.ts';
import { createDestinationBody } from '../../lib/destinations/schemas.ts';
import { createDestination } from '../../lib/events/destinations.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';

export const handler = httpRoute(
  { params: agentParams, body: createDestinationBody },
  async ({ caller, params, body }) => {
    const destination = await createDestination(caller, params.id, body);
    return created(destination, `${BASE_PATHS.agents}/agents/${params.id}/destinations/${destination.id}`);
  },
);
