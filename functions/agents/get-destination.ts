import { destinationParams } from '../../lib/destinations/schemas.ts';
import { getDestination } from '../../lib/events/destinations.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { ok } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: destinationParams }, async ({ caller, params }) =>
  ok(await getDestination(caller, params.id, params.destination_id)),
);
