import { BASE_PATHS } from '../../lib/core/settings.ts';
import type { CreatedDestinationAnswer } from '../../lib/destinations/answer.ts';
import { createDestinationBody } from '../../lib/destinations/create-body.ts';
import { createDestination } from '../../lib/events/destinations.ts';
import { agentParams } from '../../lib/events/schemas.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { created } from '../../lib/http/responses.ts';

export const handler = httpRoute(
  { params: agentParams, body: createDestinationBody },
  async ({ caller, params, body, sealAnswer }) => {
    const answer = (destination: CreatedDestinationAnswer) =>
      created(destination, `${BASE_PATHS.agents}/agents/${params.id}/destinations/${destination.id}`);
    return answer(await createDestination(caller, params.id, body, sealAnswer(answer)));
  },
);
