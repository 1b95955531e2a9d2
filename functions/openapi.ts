/**
 * GET /openapi.json: the document built from the route table (generated/openapi.json, a build
 * artifact that local/openapi-document.ts writes before anything serves or bundles it), bundled as
 * data, so the generator and zod's JSON Schema code stay out of this function.
 *
 * Imported when first served, not when this module loads: building the document loads this module
 * for its route spec before the file exists (a fresh clone). By the name package.json's `imports`
 * gives it, `#openapi-document`, not a relative path: vitest's module runner resolves a relative
 * dynamic import against the importer's raw id, which is a file: URL when the module was itself
 * loaded by one (local/lambda/handlers.ts does), and misses. Its type: generated/openapi.d.json.ts.
 */
import { staticRoute } from '../lib/http/static-route.ts';

export const handler = staticRoute(
  async () => (await import('#openapi-document', { with: { type: 'json' } })).default,
  'public, max-age=300',
);
