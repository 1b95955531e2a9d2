import document from '../docs/openapi.json' with { type: 'json' };
import { ok } from '../lib/http/responses.ts';
import { httpRoute } from '../lib/http/stack.ts';

/**
 * GET /openapi.json: the committed document (`npm run openapi` writes it), bundled as data, so the
 * generator and zod's JSON Schema code stay out of this function.
 */
export const handler = httpRoute({ auth: false }, async () => ({ ...ok(document), headers: { 'cache-control': 'public, max-age=300' } }));
