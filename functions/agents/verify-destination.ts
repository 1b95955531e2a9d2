import { destinationParams, verifyDestinationBody } from '../../lib/destinations/schemas.ts';
import { verifyDestination } from '../../lib/events/destinations.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute(
  { params: destinationParams, body: verifyDestinationBody },
  async ({ caller, params, body, sealAnswer }) =>
    ok(await verifyDestination(caller, params.id, params.destination_id, body.code, Date.now(), sealAnswer(ok))),
);
