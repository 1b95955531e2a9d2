import { writeOpenApiDocument } from '../../local/openapi-document.ts';

/**
 * Both tiers' globalSetup (vitest.config.ts): writes generated/openapi.json, a build
 * artifact (local/openapi-document.ts), once per run before any file starts. The handler of
 * GET /openapi.json serves it and test/support/openapi-responses.ts holds every answer to it;
 * building it per file instead (every handler loaded) would cost each of ~90 files about a second of CPU.
 */
export default async function setup(): Promise<void> {
  await writeOpenApiDocument();
}
