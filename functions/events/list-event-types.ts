import catalog from '../../generated/event-types.json' with { type: 'json' };
import { staticRoute } from '../../lib/http/static-route.ts';

/**
 * GET /api/v1/event-types: the event catalog, public like /openapi.json (it is the same for every
 * caller). `npm run openapi` writes the file from the zod schemas; bundling it as data keeps the
 * generator out of this function.
 */
export const handler = staticRoute(() => catalog, 'public, max-age=300');
