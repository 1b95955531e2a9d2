/**
 * `npm run openapi`, first step: writes generated/event-types.json (the answer of
 * GET /api/v1/event-types) from lib/http/openapi/event-catalog.ts, with
 * generated/event-data-schemas.json (what the outbox checks events against), both committed (a test
 * fails when one differs from what this writes; the routes serve them). The next steps write the
 * OpenAPI document (a build artifact, local/openapi-document.ts) with the client's types made from
 * it (scripts/client-types.ts), and docs/operations.md's route table (scripts/routes-doc.ts).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serializeDocument } from '../lib/http/openapi/document.ts';
import { buildEventCatalog, buildEventDataSchemas } from '../lib/http/openapi/event-catalog.ts';

export const EVENT_CATALOG_PATH = fileURLToPath(new URL('../generated/event-types.json', import.meta.url));
export const EVENT_DATA_SCHEMAS_PATH = fileURLToPath(new URL('../generated/event-data-schemas.json', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The catalog first: its route's handler imports the file, and the document loads every handler.
  writeFileSync(EVENT_CATALOG_PATH, serializeDocument(buildEventCatalog()));
  console.log(`wrote ${EVENT_CATALOG_PATH}`);
  // What the outbox checks every event against (lib/events/feed/event-check.ts), bundled as data.
  writeFileSync(EVENT_DATA_SCHEMAS_PATH, serializeDocument(buildEventDataSchemas()));
  console.log(`wrote ${EVENT_DATA_SCHEMAS_PATH}`);
}
