/**
 * GET /openapi.json: the committed document (`npm run openapi` writes it), bundled as data, so the
 * generator and zod's JSON Schema code stay out of this function.
 */
import document from '../generated/openapi.json' with { type: 'json' };
import { staticRoute } from '../lib/http/static-route.ts';

export const handler = staticRoute(() => document, 'public, max-age=300');
