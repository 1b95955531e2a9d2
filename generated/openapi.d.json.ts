// The type of generated/openapi.json, a build artifact (local/openapi-document.ts) that a fresh
// clone does not have: `npm run typecheck` needs no build first (tsconfig.json's allowArbitraryExtensions).
declare const document: { readonly openapi: string; readonly [key: string]: unknown };
export default document;
