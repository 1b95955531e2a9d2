/**
 * `npm run openapi`: writes generated/openapi.json from lib/http/openapi/document.ts and
 * generated/event-types.json (the answer of GET /api/v1/event-types) from
 * lib/http/openapi/event-catalog.ts, with generated/event-data-schemas.json (what the outbox checks
 * events against). A test fails when a committed file differs from what this
 * writes; the routes serve the committed files.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../lib/http/openapi/document.ts';
import { buildEventCatalog, buildEventDataSchemas } from '../lib/http/openapi/event-catalog.ts';
import { installAwsLambdaGlobal } from '../local/lambda/streaming.ts';

export const OPENAPI_PATH = fileURLToPath(new URL('../generated/openapi.json', import.meta.url));
export const EVENT_CATALOG_PATH = fileURLToPath(new URL('../generated/event-types.json', import.meta.url));
export const EVENT_DATA_SCHEMAS_PATH = fileURLToPath(new URL('../generated/event-data-schemas.json', import.meta.url));
export const serialize = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

/** The document as the route table and the handlers make it now (the streaming handler needs Lambda's global). */
export async function currentDocument() {
  installAwsLambdaGlobal();
  return buildOpenApiDocument();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // The catalog first: its route's handler imports the file, and the document loads every handler.
  writeFileSync(EVENT_CATALOG_PATH, serialize(buildEventCatalog()));
  console.log(`wrote ${EVENT_CATALOG_PATH}`);
  // What the outbox checks every event against (lib/events/feed/event-check.ts), bundled as data.
  writeFileSync(EVENT_DATA_SCHEMAS_PATH, serialize(buildEventDataSchemas()));
  console.log(`wrote ${EVENT_DATA_SCHEMAS_PATH}`);
  writeFileSync(OPENAPI_PATH, serialize(await currentDocument()));
  console.log(`wrote ${OPENAPI_PATH}`);
}
