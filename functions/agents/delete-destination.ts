import { destinationParams } from '../../lib/destinations/schemas.ts';
import { deleteDestination } from '../../lib/events/destinations.ts';
import { httpRoute } from '../../lib/http/middleware.ts';
import { noContent } from '../../lib/http/responses.ts';

export const handler = httpRoute({ params: destinationParams }, async ({ caller, params, sealAnswer }) => {
  await deleteDestination(caller, params.id, params.destination_id, sealAnswer(noContent));
  return noContent();
});
