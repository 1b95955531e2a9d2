/**
 * `npm run openapi`: writes generated/event-types.json (the answer of GET /api/v1/event-types) from
 * lib/http/openapi/event-catalog.ts, with generated/event-data-schemas.json (what the outbox checks
 * events against), both committed (a test fails when one differs from what this writes; the
 * routes serve them), and the OpenAPI document generated/openapi.json, a build artifact
 * (local/openapi-document.ts), which the next steps of `npm run openapi` read: the client's types
 * (scripts/client-types.ts) and docs/operations.md's route table (scripts/routes-doc.ts).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serializeDocument } from '../lib/http/openapi/document.ts';
import { buildEventCatalog, buildEventDataSchemas } from '../lib/http/openapi/event-catalog.ts';
import { OPENAPI_PATH, writeOpenApiDocument } from '../local/openapi-document.ts';

export const EVENT_CATALOG_PATH = fileURLToPath(new URL('../generated/event-types.json', import.meta.url));
export const EVENT_DATA_SCHEMAS_PATH = fileURLToPath(new URL('../generated/event-data-schemas.json', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The catalog first: its route's handler imports the file, and the document loads every handler.
  writeFileSync(EVENT_CATALOG_PATH, serializeDocument(buildEventCatalog()));
  console.log(`wrote ${EVENT_CATALOG_PATH}`);
  // What the outbox checks every event against (lib/events/feed/event-check.ts), bundled as data.
  writeFileSync(EVENT_DATA_SCHEMAS_PATH, serializeDocument(buildEventDataSchemas()));
  console.log(`wrote ${EVENT_DATA_SCHEMAS_PATH}`);
  await writeOpenApiDocument();
  console.log(`wrote ${OPENAPI_PATH}`);
}
