/**
 * `npm run openapi`: writes docs/openapi.json from lib/http/openapi/document.ts. A test fails when the
 * committed file differs from what this writes; GET /openapi.json serves the committed file.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../lib/http/openapi/document.ts';
import { installAwsLambdaGlobal } from '../local/streaming.ts';

export const OPENAPI_PATH = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
export const serialize = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

/** The document as the route table and the handlers make it now (the streaming handler needs Lambda's global). */
export async function currentDocument() {
  installAwsLambdaGlobal();
  return buildOpenApiDocument();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_PATH, serialize(await currentDocument()));
  console.log(`wrote ${OPENAPI_PATH}`);
}
