/**
 * The OpenAPI document as the route table and the handlers make it now, and generated/openapi.json
 * written from it. The file is a build artifact, not committed (.gitignore): whatever serves, lints
 * or bundles the document writes it first with writeOpenApiDocument: the CDK app before it bundles
 * (infra/app.ts) and infra/bundle.ts's bundleFunction, `npm start`, `npm run invoke`,
 * `npm run lint:openapi`, `npm run openapi` (scripts/client-types.ts) and the integration tier's
 * globalSetup (test/support/openapi-document.ts). So a new route changes no committed copy of it
 * (CONTRIBUTING.md, "Add a route"; docs/decisions.md). `node local/openapi-document.ts` writes
 * it alone.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, serializeDocument } from '../lib/http/openapi/document.ts';
import { installAwsLambdaGlobal } from './lambda/streaming.ts';

export const OPENAPI_PATH = fileURLToPath(new URL('../generated/openapi.json', import.meta.url));

/** The handler that bundles the file as data and serves it (GET /openapi.json). */
export const OPENAPI_HANDLER = 'functions/openapi.ts';

/** The document now (the streaming handler, which building it imports, needs Lambda's global). */
export async function currentOpenApiDocument(): Promise<Record<string, unknown>> {
  installAwsLambdaGlobal();
  return buildOpenApiDocument();
}

/**
 * Writes generated/openapi.json when it differs from the document now (an unchanged file keeps its
 * bytes and time), through a temporary file and a rename: a reader never sees half a document, and
 * two writers at once (two test runs) each leave a whole one. Returns the document's text.
 */
export async function writeOpenApiDocument(): Promise<string> {
  const text = serializeDocument(await currentOpenApiDocument());
  let written: string | undefined;
  try {
    written = readFileSync(OPENAPI_PATH, 'utf8');
  } catch {
    // Not made yet (a fresh clone).
  }
  if (written !== text) {
    const temporary = `${OPENAPI_PATH}.${process.pid}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, OPENAPI_PATH);
  }
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeOpenApiDocument();
  console.log(`wrote ${OPENAPI_PATH}`);
}
