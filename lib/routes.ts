/**
 * The one route table. The CDK stack makes one Lambda function per row, the local runtime routes
 * HTTP requests with the same rows, and the route list of docs/operations.md is generated from it
 * (`npm run routes`), and so is its operation in the OpenAPI document (with `doc`, the route's
 * words and answers). Adding a route touches more than this row: CONTRIBUTING.md, "Recipes", lists the files.
 *
 * `handler` is the module path from the repository root; it must export `handler`.
 * `access` and `sendsToQueue` are the function's grants (lib/function-grants.ts): infra grants
 * exactly those, and the local runtime refuses anything else, so a wrong row fails the tests.
 */

import type { ErrorCode } from './core/errors.ts';
import {
  BASE_PATHS,
  DESTINATION_REGISTRATION_LIMITS,
  JWKS_MAX_AGE_SECONDS,
  KEYLESS_ROUTE_LIMITS,
  VERIFY_FUNCTION_TIMEOUT_SECONDS,
  VERSION_CHANGE_LIMITS,
  VERSION_NOTICES,
  VISIBILITY_CHANGE_LIMITS,
} from './core/settings.ts';
import type { FunctionGrant, SigningKeyUse, TableAccess } from './function-grants.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  /** Stable function name: used for the Lambda id, the OpenAPI operationId and the local invoke command. */
  name: string;
  method: HttpMethod;
  /** Full path with `{param}` segments, as API Gateway writes it. */
  path: string;
  handler: string;
  /** false only for routes that answer without an API key. */
  auth: boolean;
  /** What the function does to the table (the SSE route writes its stream lease). */
  access: TableAccess;
  /** Needs the delivery queue (manual retry enqueues). */
  sendsToQueue?: boolean;
  /** Seals (makes) or opens (signs with) the agents' ed25519 private keys: a KMS grant in AWS. */
  signingKey?: SigningKeyUse;
  /** Seconds; the default is 10. The verify handshake waits up to 10 s on the endpoint. */
  timeoutSeconds?: number;
  /** Lambda response streaming (server-sent events). */
  streaming?: boolean;
  /**
   * A portal link's token may call it, for the link's agent only (the `{id}` of the path): the
   * authorizer's policy names exactly these rows (lib/http/authorizer-policy.ts). An API key may call every route.
   */
  portal?: true;
  /** What the OpenAPI document says of the route beyond its request shapes (read from the handler's own spec). */
  doc: RouteDoc;
}

/**
 * A route's words and answers, beside its row: the summary and description, the success answers
 * (each with the name of its answer schema, a component of lib/http/openapi/schemas.ts) and the
 * errors it can answer besides those every route shares (lib/http/openapi/document.ts adds 400,
 * 401, 404, 413, 415, 429, 500 where they apply). Names, not schemas: this table is read by infra
 * and the local runtime, which carry no zod.
 */
export interface RouteDoc {
  tag: 'Health' | 'Marketplace' | 'Agents and webhooks' | 'Events and deliveries' | 'Contracts';
  summary: string;
  description?: string;
  answers: Readonly<Record<number, RouteAnswer>>;
  errors?: readonly ErrorCode[];
  /**
   * A request that succeeds against a fresh `npm start` (the ids the demo seed makes,
   * local/demo/identity.ts): the OpenAPI document shows it as the operation's example, and
   * `npm run invoke -- <route>` sends it (local/demo/sample-event.ts; test/local/samples-run.test.ts
   * runs every route's). None when the route needs no path parameter, query or body.
   */
  example?: RequestExample;
}

/** A request as its caller writes it: path parameters and query as strings, the body as JSON. */
export interface RequestExample {
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, string>>;
  body?: unknown;
}

export interface RouteAnswer {
  description: string;
  /** The answer schema's component name (a named schema of lib/http/openapi/schemas.ts). */
  schema?: string;
  /** Response headers this answer always carries (besides x-request-id and the CORS ones). */
  headers?: readonly ('Location' | 'ETag' | 'Cache-Control')[];
}

export const MARKETPLACE_BASE = BASE_PATHS.marketplace;
export const AGENTS_BASE = BASE_PATHS.agents;

const m = MARKETPLACE_BASE;
const a = AGENTS_BASE;

export const routes: readonly Route[] = [
  {
    name: 'health',
    method: 'GET',
    path: '/health',
    handler: 'functions/health.ts',
    auth: false,
    access: 'none',
    doc: {
      tag: 'Health',
      summary: 'Liveness check (no key)',
      answers: { 200: { description: 'OK', schema: 'Health' } },
    },
  },
  {
    name: 'openApiDocument',
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/openapi.ts',
    auth: false,
    access: 'none',
    doc: {
      tag: 'Health',
      summary: 'This OpenAPI document (no key)',
      answers: { 200: { description: 'The OpenAPI 3.1 document.' } },
    },
  },

  // Marketplace
  {
    name: 'listTemplates',
    method: 'GET',
    path: `${m}/templates`,
    handler: 'functions/marketplace/list-templates.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: 'Browse, search and sort public templates',
      description:
        'Offset up to 10,000 or a cursor for deeper pages. `search` matches every word as a prefix of a word of name, slug, description or category, and combines with every `sort` (default `popular`) and with `category`; ties are broken newest first. `pagination.total` is exact, except for a multi-word search cut short by its read budget: then it is an upper bound and `total_exact` is false.',
      answers: { 200: { description: 'OK', schema: 'TemplatePage' } },
      example: { query: { sort: 'popular', category: 'http', limit: '10' } },
    },
  },
  {
    name: 'featuredTemplates',
    method: 'GET',
    path: `${m}/templates/featured`,
    handler: 'functions/marketplace/featured-templates.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: 'The featured, trending, new and top-rated lists',
      answers: { 200: { description: 'OK', schema: 'FeaturedTemplates' } },
    },
  },
  {
    name: 'publishTemplate',
    method: 'POST',
    path: `${m}/templates`,
    handler: 'functions/marketplace/publish-template.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Publish a template',
      answers: { 201: { description: 'Published.', schema: 'Template', headers: ['Location'] } },
      errors: ['slug_taken'],
      example: {
        body: {
          name: 'My uptime check',
          slug: 'my-uptime-check',
          description: 'Pays out when an endpoint answers 200.',
          category: 'http',
          version: '1.0.0',
          visibility: 'public',
          schema: {
            variables: [
              { name: 'url', type: 'url', description: 'Endpoint to probe' },
              { name: 'expected_status', type: 'integer', required: false, default: 200 },
            ],
            checks: [{ id: 'status', type: 'http_status', config: { url: '{{url}}', status: '{{expected_status}}' } }],
          },
        },
      },
    },
  },
  {
    name: 'getTemplate',
    method: 'GET',
    path: `${m}/templates/{id}`,
    handler: 'functions/marketplace/get-template.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: 'A template by id or slug, with its versions and newest reviews',
      answers: { 200: { description: 'OK', schema: 'TemplateDetails' } },
      example: { params: { id: 'http-uptime-check' } },
    },
  },
  {
    name: 'updateTemplate',
    method: 'PATCH',
    path: `${m}/templates/{id}`,
    handler: 'functions/marketplace/update-template.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: "Change a template's name, description, category or visibility (author only)",
      description: `A change of \`visibility\` moves the template's whole search index: at most ${VISIBILITY_CHANGE_LIMITS.perWindow} per template per ${VISIBILITY_CHANGE_LIMITS.windowMs / 3_600_000} h, then 429 \`rate_limited\` with \`Retry-After\` (other fields are not limited).`,
      answers: { 200: { description: 'OK', schema: 'Template' } },
      errors: ['forbidden'],
      example: {
        params: { id: 'sample-uptime-check' },
        body: { description: 'Pays out when an endpoint answers with the expected status.', category: 'http' },
      },
    },
  },
  {
    name: 'publishVersion',
    method: 'POST',
    path: `${m}/templates/{id}/versions`,
    handler: 'functions/marketplace/publish-version.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Publish a new version (author only)',
      answers: { 201: { description: 'Published.', schema: 'Template' } },
      errors: ['forbidden', 'version_exists'],
      example: {
        params: { id: 'sample-uptime-check' },
        body: {
          version: '1.1.0',
          changelog: 'Expected status is now required.',
          schema: {
            variables: [
              { name: 'url', type: 'url', description: 'Endpoint to probe' },
              { name: 'expected_status', type: 'integer' },
            ],
            checks: [{ id: 'status', type: 'http_status', config: { url: '{{url}}', status: '{{expected_status}}' } }],
          },
        },
      },
    },
  },
  {
    name: 'featureTemplate',
    method: 'PUT',
    path: `${m}/templates/{id}/featured`,
    handler: 'functions/marketplace/feature-template.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Feature a template (operators only; idempotent)',
      answers: { 204: { description: 'Featured.' } },
      errors: ['forbidden'],
      example: { params: { id: 'http-uptime-check' } },
    },
  },
  {
    name: 'unfeatureTemplate',
    method: 'DELETE',
    path: `${m}/templates/{id}/featured`,
    handler: 'functions/marketplace/unfeature-template.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Stop featuring a template (operators only; idempotent)',
      answers: { 204: { description: 'Not featured.' } },
      errors: ['forbidden'],
      example: { params: { id: 'http-uptime-check' } },
    },
  },
  {
    name: 'installTemplate',
    method: 'POST',
    path: `${m}/templates/{id}/install`,
    handler: 'functions/marketplace/install-template.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: "Install a template into the caller's workspace",
      answers: {
        200: { description: 'Already installed: the original record, nothing changed.', schema: 'Installation' },
        201: { description: 'Installed.', schema: 'Installation' },
      },
      example: { params: { id: 'http-uptime-check' } },
    },
  },
  {
    name: 'listInstalled',
    method: 'GET',
    path: `${m}/installed`,
    handler: 'functions/marketplace/list-installed.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: "Templates installed in the caller's workspace, most recent first",
      answers: { 200: { description: 'OK', schema: 'InstalledPage' } },
    },
  },
  {
    name: 'createReview',
    method: 'POST',
    path: `${m}/templates/{id}/reviews`,
    handler: 'functions/marketplace/create-review.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Review a template (once per user)',
      answers: { 201: { description: 'Reviewed.', schema: 'Review' } },
      errors: ['review_exists', 'forbidden'],
      example: {
        params: { id: 'ai-summary-quality' },
        body: { rating: 5, title: 'Does what it says', comment: 'Set up in two minutes.' },
      },
    },
  },
  {
    name: 'listReviews',
    method: 'GET',
    path: `${m}/templates/{id}/reviews`,
    handler: 'functions/marketplace/list-reviews.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: "A template's reviews, newest first",
      description:
        'A review an operator hid is left out, but for its writer and operators: their first page (no `offset`, no `cursor`) leads with the hidden reviews they may see, marked `hidden: true` — the writer their own, an operator the newest `limit` hidden ones. `total` counts visible reviews only.',
      answers: { 200: { description: 'OK', schema: 'ReviewPage' } },
      example: { params: { id: 'ai-summary-quality' }, query: { limit: '5' } },
    },
  },
  {
    name: 'changeVersion',
    method: 'PATCH',
    path: `${m}/templates/{id}/versions/{version}`,
    handler: 'functions/marketplace/change-version.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Deprecate or yank a version, or take either back (author only)',
      description: `\`deprecated\`: a message (the version stays installable and is shown as deprecated) or null to take it back. \`yanked\`: true stops new installs and contracts of the version (contracts made from it keep their checks); the template's current version falls back to the newest one not yanked, and a template whose every version is yanked leaves every list. Installers hear of it as \`template.version.deprecated\` / \`template.version.yanked\` on the agents their workspace chose (\`PUT /installed/agents\`): at most ${VERSION_NOTICES.perWindow} notices of a template per ${VERSION_NOTICES.windowSeconds / 60} minutes start at once, later ones are told at the window's end with their version's latest state. At most ${VERSION_CHANGE_LIMITS.perWindow} changes per template per ${VERSION_CHANGE_LIMITS.windowMs / 3_600_000} h, then 429 \`rate_limited\` with \`Retry-After\`.`,
      answers: { 200: { description: 'OK', schema: 'VersionChanged' } },
      errors: ['forbidden'],
      example: {
        params: { id: 'code-review-delivered', version: '1.2.0' },
        body: { deprecated: 'Use the next version: the review check moved.' },
      },
    },
  },
  {
    name: 'templateStats',
    method: 'GET',
    path: `${m}/templates/{id}/stats`,
    handler: 'functions/marketplace/template-stats.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: 'Installs, contracts, reviews and rating per UTC day and version (author only)',
      description:
        'A window of at most 366 days, `from` and `to` included. The counts are kept per day as they happen, so the read costs the same for one day as for a year.',
      answers: { 200: { description: 'OK', schema: 'TemplateStatsSeries' } },
      errors: ['forbidden'],
      example: {
        params: { id: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f' },
        query: { from: '2026-01-01', to: '2026-12-31' },
      },
    },
  },
  {
    name: 'getEventAgents',
    method: 'GET',
    path: `${m}/installed/agents`,
    handler: 'functions/marketplace/get-event-agents.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: "The workspace's agents that receive template events",
      answers: { 200: { description: 'OK', schema: 'EventAgents' } },
    },
  },
  {
    name: 'setEventAgents',
    method: 'PUT',
    path: `${m}/installed/agents`,
    handler: 'functions/marketplace/set-event-agents.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: "Choose the workspace's agents that receive template events (replaces the list)",
      description:
        "Installing a template is consent to hear of its versions; these agents (at most 10, each the caller's) get `template.version.deprecated` and `template.version.yanked` in their feed and stream, and on their webhook if it subscribes to the kind. An empty list: none do (the default).",
      answers: { 200: { description: 'OK', schema: 'EventAgents' } },
      errors: ['not_found'],
      example: { body: { agent_ids: ['agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC'] } },
    },
  },
  {
    name: 'createReport',
    method: 'POST',
    path: `${m}/reports`,
    handler: 'functions/marketplace/create-report.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Report a template or a review to the operators',
      description:
        "One open report per reporter and item (409 `report_exists`); at most 10 reports per user per hour (429). A review is named by its template and its reviewer (`reviewer_id` = the review's `user.id`).",
      answers: { 201: { description: 'Reported.', schema: 'Report' } },
      errors: ['not_found', 'report_exists'],
      example: {
        body: {
          template_id: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
          reason: 'other',
          text: 'The description promises more checks than the schema has.',
        },
      },
    },
  },
  {
    name: 'listReports',
    method: 'GET',
    path: `${m}/reports`,
    handler: 'functions/marketplace/list-reports.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: 'Open reports, newest first (operators only)',
      answers: { 200: { description: 'OK', schema: 'ReportPage' } },
      errors: ['forbidden'],
    },
  },
  {
    name: 'moderate',
    method: 'POST',
    path: `${m}/moderation/actions`,
    handler: 'functions/marketplace/moderate.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Marketplace',
      summary: 'Hide, restore or dismiss a template or review; verify an author (operators only)',
      description:
        'Every action is recorded in the audit trail (GET /moderation/actions). A hidden template leaves every list, search and the category counts, and only its author and operators see it; a hidden review leaves the review list and the rating. `hide` and `dismiss` close the open reports of the item.',
      answers: { 201: { description: 'Done and recorded.', schema: 'ModerationAction' } },
      errors: ['forbidden', 'not_found'],
      example: {
        body: {
          action: 'dismiss',
          template_id: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
          reason: 'Checked: the description matches the schema.',
        },
      },
    },
  },
  {
    name: 'listModerationActions',
    method: 'GET',
    path: `${m}/moderation/actions`,
    handler: 'functions/marketplace/list-moderation-actions.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: 'The moderation audit trail, newest first (operators only)',
      answers: { 200: { description: 'OK', schema: 'ModerationActionPage' } },
      errors: ['forbidden'],
    },
  },
  {
    name: 'listCategories',
    method: 'GET',
    path: `${m}/categories`,
    handler: 'functions/marketplace/list-categories.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Marketplace',
      summary: 'Categories with their number of public templates',
      answers: { 200: { description: 'OK', schema: 'CategoryList' } },
    },
  },

  // Agents and webhooks
  {
    name: 'createAgent',
    method: 'POST',
    path: `${a}/agents`,
    handler: 'functions/agents/create-agent.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Create an agent (at most 100 per account)',
      answers: { 201: { description: 'Created.', schema: 'Agent', headers: ['Location'] } },
      errors: ['limit_exceeded'],
      example: { body: { name: 'buyer bot' } },
    },
  },
  {
    name: 'listAgents',
    method: 'GET',
    path: `${a}/agents`,
    handler: 'functions/agents/list-agents.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Agents and webhooks',
      summary: "The caller's agents, newest first",
      answers: { 200: { description: 'OK', schema: 'AgentPage' } },
      example: { query: { limit: '20' } },
    },
  },
  {
    name: 'getAgent',
    method: 'GET',
    path: `${a}/agents/{id}`,
    handler: 'functions/agents/get-agent.ts',
    auth: true,
    access: 'read',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'An agent',
      answers: { 200: { description: 'OK', schema: 'Agent' } },
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'deleteAgent',
    method: 'DELETE',
    path: `${a}/agents/{id}`,
    handler: 'functions/agents/delete-agent.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Agents and webhooks',
      summary:
        'Delete an agent: its webhook stops at once, it no longer counts against the 100-agent cap, and it is 404 afterwards',
      description:
        'Deliveries not yet made are not attempted. The agent gets no new events; the feed it had is kept until its events expire (30 days) but can no longer be read through the API, since every route answers 404 for the agent.',
      answers: { 204: { description: 'Deleted.' } },
      example: { params: { id: 'agt_01KAKQ8D1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'configureWebhook',
    method: 'PATCH',
    path: `${a}/agents/{id}/webhook`,
    handler: 'functions/agents/configure-webhook.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: "Set an agent's webhook URL and event kinds",
      description: 'The webhook becomes PENDING_VERIFICATION. The first configuration also returns the signing secret.',
      answers: { 200: { description: 'OK', schema: 'ConfiguredAgent' } },
      example: {
        params: { id: 'agt_01KAKQ8E1B2C3D4E5F6G7H8J9K' },
        body: { webhook_url: 'http://localhost:8080/webhook', events: ['contract.funded', 'contract.released'] },
      },
    },
  },
  {
    name: 'disableWebhook',
    method: 'DELETE',
    path: `${a}/agents/{id}/webhook`,
    handler: 'functions/agents/disable-webhook.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Agents and webhooks',
      summary: "Disable an agent's webhook (the secret is kept)",
      answers: { 200: { description: 'OK', schema: 'Agent' } },
      example: { params: { id: 'agt_01KAKQ8E1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'getWebhookSecret',
    method: 'GET',
    path: `${a}/agents/{id}/webhook/secret`,
    handler: 'functions/agents/get-webhook-secret.ts',
    auth: true,
    access: 'read',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: "The webhook's signing secret",
      answers: { 200: { description: 'OK', schema: 'WebhookSecret' } },
      errors: ['webhook_not_configured'],
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'rotateWebhookSecret',
    method: 'POST',
    path: `${a}/agents/{id}/webhook/secret/rotate`,
    handler: 'functions/agents/rotate-webhook-secret.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Replace the signing secret, the previous one still signing beside it for a while',
      description:
        "Deliveries sign with the new secret from now on. Until `expire_previous_in_seconds` (0–86400, default 86400) have passed, `webhook-signature` carries `v1,<new> v1,<previous>` so receivers holding either secret verify; `x-service-signature` is the new secret's alone. Rotating again during an overlap keeps only the secret that was current until then as the previous one.",
      answers: { 200: { description: 'OK', schema: 'WebhookSecret' } },
      errors: ['webhook_not_configured'],
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    },
  },
  // ed25519 `v1a` signatures (docs/webhooks.md, "ed25519 signatures"): the agent's key pairs and their public halves.
  {
    name: 'getWebhookPublicKeys',
    method: 'GET',
    path: `${a}/agents/{id}/webhook/public-keys`,
    handler: 'functions/agents/get-webhook-public-keys.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Agents and webhooks',
      summary: "The webhook's ed25519 public keys (`v1a` signatures), current first",
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
      answers: { 200: { description: 'OK', schema: 'WebhookPublicKeys' } },
    },
  },
  {
    name: 'rotateWebhookSigningKey',
    method: 'POST',
    path: `${a}/agents/{id}/webhook/public-keys/rotate`,
    handler: 'functions/agents/rotate-webhook-signing-key.ts',
    auth: true,
    access: 'readwrite',
    signingKey: 'seal',
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Turn `v1a` (ed25519) signatures on with a new key pair, or rotate it',
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
      description:
        'The first call makes a key pair and turns `v1a` on: `webhook-signature` then carries `v1a,<base64 ed25519 signature>` after the `v1,` entries. A later call rotates: the new key signs from now on, the previous one beside it until `expire_previous_in_seconds` (0–86400, default 86400) have passed, as with secrets. The private key never leaves the service and is stored encrypted.',
      answers: { 200: { description: 'OK', schema: 'WebhookPublicKeys' } },
    },
  },
  {
    name: 'dropWebhookSigningKeys',
    method: 'DELETE',
    path: `${a}/agents/{id}/webhook/public-keys`,
    handler: 'functions/agents/drop-webhook-signing-keys.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Turn `v1a` signatures off: both key pairs are dropped at once',
      example: { params: { id: 'agt_01KAKQ8E1B2C3D4E5F6G7H8J9K' } },
      answers: { 200: { description: 'OK', schema: 'WebhookPublicKeys' } },
    },
  },
  // Public keys are public: receivers fetch an agent's JWKS without a key (the agent id is in every event).
  {
    name: 'getWebhookJwks',
    method: 'GET',
    path: `${a}/webhook-keys/{id}`,
    handler: 'functions/agents/webhook-jwks.ts',
    auth: false,
    access: 'read',
    doc: {
      tag: 'Agents and webhooks',
      summary: "An agent's live ed25519 public keys as a JSON Web Key Set (no key)",
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
      description: `The service-wide JWKS document of \`v1a\` signatures, one set per agent: \`{"keys": [current, previous while its overlap lasts]}\` (RFC 7517/8037, \`kty: OKP\`, \`crv: Ed25519\`). 404 when the agent has no key pair (or does not exist). Cacheable: \`Cache-Control: public, max-age=${JWKS_MAX_AGE_SECONDS}\` and an \`ETag\`; send it back as \`If-None-Match\` for a 304 without a body while the keys are unchanged. Without a key, all callers together share one throttle of this route (${KEYLESS_ROUTE_LIMITS.ratePerSecond} a second, bursts of ${KEYLESS_ROUTE_LIMITS.burst}).`,
      answers: {
        200: { description: 'OK', schema: 'Jwks', headers: ['ETag', 'Cache-Control'] },
        304: {
          description: 'Not modified: the keys are those of the `If-None-Match` tag.',
          headers: ['ETag', 'Cache-Control'],
        },
      },
    },
  },
  {
    name: 'verifyWebhook',
    method: 'POST',
    path: `${a}/agents/{id}/webhook/verify`,
    handler: 'functions/agents/verify-webhook.ts',
    auth: true,
    access: 'readwrite',
    signingKey: 'open',
    portal: true,
    timeoutSeconds: VERIFY_FUNCTION_TIMEOUT_SECONDS,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Run the challenge handshake; ENABLED when the endpoint echoes the token within 10 seconds',
      answers: { 200: { description: 'OK', schema: 'Agent' } },
      errors: [
        'webhook_not_configured',
        'invalid_transition',
        'verification_timeout',
        'challenge_mismatch',
        'endpoint_error',
        'url_validation_error',
      ],
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    },
  },
  // A test event is committed through the outbox (feed slot + event row), like every event.
  {
    name: 'sendTestEvent',
    method: 'POST',
    path: `${a}/agents/{id}/webhook/test`,
    handler: 'functions/events/send-test-event.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Send a signed service.webhook.test event to the ENABLED webhook',
      description:
        'Same envelope and headers as contract events, `data: {}`, whatever kinds the webhook subscribes to; in the feed and recorded as a delivery.',
      answers: { 202: { description: 'Queued.', schema: 'TestEventAccepted' } },
      errors: ['webhook_not_configured'],
      example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' } },
    },
  },
  // The event catalog is the same for every caller (like /openapi.json): public, served from a build-time file.
  {
    name: 'listEventTypes',
    method: 'GET',
    path: `${a}/event-types`,
    handler: 'functions/events/list-event-types.ts',
    auth: false,
    access: 'none',
    doc: {
      tag: 'Events and deliveries',
      summary:
        'The event catalog: every kind, whether a webhook can subscribe to it, and the JSON Schema of its event object (no key)',
      answers: { 200: { description: 'OK', schema: 'EventTypeList' } },
    },
  },
  // Feed readers write too: a feed slot left empty by a writer that died is filled with a gap marker (lib/events/feed/reader.ts).
  {
    name: 'listAgentEvents',
    method: 'GET',
    path: `${a}/agents/{id}/events`,
    handler: 'functions/events/list-agent-events.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Events and deliveries',
      summary: "The agent's events after a cursor, oldest first (polling)",
      answers: { 200: { description: 'OK', schema: 'EventPage' } },
      example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' }, query: { limit: '20' } },
    },
  },
  {
    name: 'streamAgentEvents',
    method: 'GET',
    path: `${a}/agents/{id}/events/stream`,
    handler: 'functions/events/stream-agent-events.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    streaming: true,
    timeoutSeconds: 900,
    doc: {
      tag: 'Events and deliveries',
      summary: "The agent's events as server-sent events",
      description:
        'Each event is an SSE message with `id` (the event id), `event` (its type) and `data` (the Event object as JSON). A comment line every 10 s keeps the connection open; the stream ends before the function times out and `EventSource` resumes with `Last-Event-ID`. Where it starts: after `Last-Event-ID` when sent; else `since` = `now` (only events from now on), an ISO 8601 time (events from the first one created at or after it) or an event id (after it); else `after`; with none of them it replays the whole retained feed (30 days). A start from `since` is sent first as an `id:` line without data, so a reconnect resumes from it.',
      answers: { 200: { description: 'A stream of server-sent events.' } },
      example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' } },
    },
  },
  {
    name: 'replayEvents',
    method: 'POST',
    path: `${a}/agents/{id}/events/replay`,
    handler: 'functions/events/replay-events.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Events and deliveries',
      summary: "Send the agent's events of a time window to its ENABLED webhook again",
      description:
        'Every event created in [`since`, `until`) (default until: now; at most 30 days) of the kinds in `types` (default: every kind the webhook subscribes to; an unsubscribed kind is 400) goes to the webhook again as a new delivery with the same event id, including events from before the webhook was enabled. `replayed` is the number of those events when the request was made; they are sent by a background job, a page of 100 at a time, and show in the delivery list. The job stops if the webhook stops being ENABLED. At most 5 replays per agent per hour (429 beyond).',
      answers: { 202: { description: 'Accepted: the job sends the events.', schema: 'ReplayAccepted' } },
      errors: ['webhook_not_configured'],
      example: {
        params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' },
        body: { since: '2026-11-01T00:00:00Z', until: '2026-11-30T00:00:00Z', types: ['contract.funded'] },
      },
    },
  },
  {
    name: 'listDeliveries',
    method: 'GET',
    path: `${a}/agents/{id}/deliveries`,
    handler: 'functions/events/list-deliveries.ts',
    auth: true,
    access: 'read',
    portal: true,
    doc: {
      tag: 'Events and deliveries',
      summary: "The agent's webhook deliveries, newest first",
      answers: { 200: { description: 'OK', schema: 'DeliveryPage' } },
      example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' } },
    },
  },
  {
    name: 'getDelivery',
    method: 'GET',
    path: `${a}/agents/{id}/deliveries/{delivery_id}`,
    handler: 'functions/events/get-delivery.ts',
    auth: true,
    access: 'read',
    portal: true,
    doc: {
      tag: 'Events and deliveries',
      summary: 'One delivery with its attempt history',
      answers: { 200: { description: 'OK', schema: 'DeliveryDetail' } },
      example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC', delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3J' } },
    },
  },
  {
    name: 'retryDelivery',
    method: 'POST',
    path: `${a}/agents/{id}/deliveries/{delivery_id}/retry`,
    handler: 'functions/events/retry-delivery.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    sendsToQueue: true,
    doc: {
      tag: 'Events and deliveries',
      summary: 'One extra attempt now, outside the retry schedule',
      description:
        'A pending delivery keeps its scheduled attempts (none is used up or moved); a failed one goes back to pending for this attempt; a succeeded one is 409 `invalid_transition` unless the body is `{"force": true}`.',
      answers: { 202: { description: 'Queued.', schema: 'Delivery' } },
      errors: ['webhook_not_configured', 'invalid_transition'],
      example: {
        params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC', delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3J' },
        body: { force: true },
      },
    },
  },

  // AWS destinations (issue 24, part 1): an agent's SQS queues and EventBridge buses, delivered to without stored credentials.
  // Portal rows: the portal page lists, adds, verifies and removes them as it configures the webhook (issue 25).
  {
    name: 'createDestination',
    method: 'POST',
    path: `${a}/agents/{id}/destinations`,
    handler: 'functions/agents/create-destination.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Add an SQS queue or EventBridge bus of your AWS account as a destination (at most 5 per agent)',
      description: `The destination is PENDING_VERIFICATION: apply the \`policy\` of the answer to the queue or bus, then post the code of the verification message the service sends into it to …/verify. The ARN must name a queue (\`arn:aws:sqs:…\`) or an event bus (\`arn:aws:events:…:event-bus/…\`) in your account, not the service's. \`signing_secret\` signs its messages and is only in this answer. An account may register ${DESTINATION_REGISTRATION_LIMITS.perWindow} destinations per hour (each sends a message into the ARN it names); more is 429 \`rate_limited\`.`,
      answers: { 201: { description: 'Registered.', schema: 'CreatedDestination', headers: ['Location'] } },
      errors: ['limit_exceeded'],
      example: {
        params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' },
        body: {
          arn: 'arn:aws:sqs:us-east-1:000000000000:template-marketplace-demo-destination',
          events: ['contract.funded'],
        },
      },
    },
  },
  {
    name: 'listDestinations',
    method: 'GET',
    path: `${a}/agents/{id}/destinations`,
    handler: 'functions/agents/list-destinations.ts',
    auth: true,
    access: 'read',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: "The agent's AWS destinations, oldest first",
      answers: { 200: { description: 'OK', schema: 'DestinationList' } },
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'getDestination',
    method: 'GET',
    path: `${a}/agents/{id}/destinations/{destination_id}`,
    handler: 'functions/agents/get-destination.ts',
    auth: true,
    access: 'read',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'One AWS destination, with its verification state and the policy to apply',
      answers: { 200: { description: 'OK', schema: 'Destination' } },
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', destination_id: 'dst_01KAKQ8F1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'deleteDestination',
    method: 'DELETE',
    path: `${a}/agents/{id}/destinations/{destination_id}`,
    handler: 'functions/agents/delete-destination.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Remove an AWS destination: nothing more is sent to it',
      answers: { 204: { description: 'Deleted.' } },
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', destination_id: 'dst_01KAKQ8G1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'verifyDestination',
    method: 'POST',
    path: `${a}/agents/{id}/destinations/{destination_id}/verify`,
    handler: 'functions/agents/verify-destination.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Post the code of the verification message: the destination becomes ENABLED',
      description:
        'A code counts for 24 hours and 5 wrong tries. A wrong code answers `verification_code_mismatch` with the tries left; an expired or used-up code, or none yet (the message could not be sent: see `verification.last_error`), answers `verification_code_expired` and sends a new message: at most one a minute per destination, whatever became of the last (sooner is 429 `rate_limited` with `Retry-After`).',
      answers: { 200: { description: 'ENABLED.', schema: 'Destination' } },
      errors: ['invalid_transition', 'verification_code_mismatch', 'verification_code_expired'],
      example: {
        params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', destination_id: 'dst_01KAKQ8F1B2C3D4E5F6G7H8J9K' },
        body: { code: 'DEMO0-C0DE0' },
      },
    },
  },

  // Contracts
  // Portal links (issue 25): the owner's API key only; a link's token cannot make or revoke links.
  {
    name: 'createPortalLink',
    method: 'POST',
    path: `${a}/agents/{id}/portal-links`,
    handler: 'functions/agents/create-portal-link.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Agents and webhooks',
      summary: "A link to the agent's portal page (owner only)",
      description:
        "The URL opens the portal page for this agent; its fragment carries a token (`pt_…`) that lasts at most an hour (`expires_in_seconds`, default 3600), may call only this agent's portal routes, is stored only as its SHA-256 and can be revoked. Never an API key.",
      answers: { 201: { description: 'Created.', schema: 'PortalLink' } },
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' }, body: { expires_in_seconds: 600 } },
    },
  },
  {
    name: 'revokePortalLink',
    method: 'DELETE',
    path: `${a}/agents/{id}/portal-links/{link_id}`,
    handler: 'functions/agents/revoke-portal-link.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Agents and webhooks',
      summary: 'Revoke a portal link (owner only; idempotent)',
      answers: { 204: { description: 'Revoked.' } },
      example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', link_id: 'pl_00000000000000d0' } },
    },
  },
  {
    name: 'listContracts',
    method: 'GET',
    path: `${a}/contracts`,
    handler: 'functions/contracts/list-contracts.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Contracts',
      summary: "The caller's contracts (as buyer or seller), newest first",
      description:
        "`status` filters by status; `agent_id` (one of the caller's agents, else 404) keeps the contracts that agent is a party to. Cursor paging with `next_cursor`. Contracts created before this list existed appear once they move again.",
      answers: { 200: { description: 'OK', schema: 'ContractPage' } },
      errors: ['not_found'],
      example: { query: { status: 'FUNDED', limit: '20' } },
    },
  },
  {
    name: 'createContract',
    method: 'POST',
    path: `${a}/contracts`,
    handler: 'functions/contracts/create-contract.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Contracts',
      summary: 'Create a contract from a template',
      answers: { 201: { description: 'Created.', schema: 'Contract', headers: ['Location'] } },
      errors: ['not_found'],
      example: {
        body: {
          template_id: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
          variables: { url: 'https://example.com/health' },
          amount_cents: 50000,
          agent_id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC',
        },
      },
    },
  },
  {
    name: 'getContract',
    method: 'GET',
    path: `${a}/contracts/{id}`,
    handler: 'functions/contracts/get-contract.ts',
    auth: true,
    access: 'read',
    doc: {
      tag: 'Contracts',
      summary: 'A contract',
      answers: { 200: { description: 'OK', schema: 'Contract' } },
      example: { params: { id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'fundContract',
    method: 'POST',
    path: `${a}/contracts/{id}/fund`,
    handler: 'functions/contracts/fund-contract.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Contracts',
      summary: 'CREATED → FUNDED; emits contract.funded',
      answers: { 200: { description: 'OK', schema: 'Contract' } },
      errors: ['invalid_transition', 'forbidden'],
      example: { params: { id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'recordVerification',
    method: 'POST',
    path: `${a}/contracts/{id}/verification`,
    handler: 'functions/contracts/record-verification.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Contracts',
      summary: 'FUNDED → VERIFIED or VERIFICATION_FAILED; emits contract.verification.completed',
      answers: { 200: { description: 'OK', schema: 'Contract' } },
      errors: ['invalid_transition', 'forbidden'],
      example: {
        params: { id: 'ctr_01KAKQ8B1B2C3D4E5F6G7H8J9K' },
        body: { passed: true, results: { http_status: 200 } },
      },
    },
  },
  {
    name: 'releaseContract',
    method: 'POST',
    path: `${a}/contracts/{id}/release`,
    handler: 'functions/contracts/release-contract.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Contracts',
      summary: 'VERIFIED → RELEASED; emits contract.released',
      answers: { 200: { description: 'OK', schema: 'Contract' } },
      errors: ['invalid_transition', 'forbidden'],
      example: { params: { id: 'ctr_01KAKQ8C1B2C3D4E5F6G7H8J9K' } },
    },
  },
  {
    name: 'refundContract',
    method: 'POST',
    path: `${a}/contracts/{id}/refund`,
    handler: 'functions/contracts/refund-contract.ts',
    auth: true,
    access: 'readwrite',
    doc: {
      tag: 'Contracts',
      summary: '→ REFUNDED; emits contract.refunded',
      answers: { 200: { description: 'OK', schema: 'Contract' } },
      errors: ['invalid_transition', 'forbidden'],
      example: { params: { id: 'ctr_01KAKQ8D1B2C3D4E5F6G7H8J9K' } },
    },
  },
];

/** Functions not behind a route: the authorizer, the event-source consumers and the daily job. */
export const workers = {
  authorizer: 'functions/authorizer.ts',
  relay: 'functions/workers/relay.ts',
  searchIndexer: 'functions/workers/search-indexer.ts',
  deliver: 'functions/workers/deliver.ts',
  deliverToDestinations: 'functions/workers/deliver-to-destinations.ts',
  trendRollover: 'functions/workers/trend-rollover.ts',
  push: 'functions/workers/push.ts',
} as const;

/** The workers' grants, as `access`/`sendsToQueue` are the routes'. */
export const workerGrants: Record<keyof typeof workers, FunctionGrant> = {
  authorizer: { table: 'read' },
  relay: { table: 'readwrite', queue: 'send' },
  searchIndexer: { table: 'readwrite' },
  deliver: { table: 'readwrite', queue: 'consume', signingKey: 'open' },
  deliverToDestinations: { table: 'readwrite', queue: 'consume', destinations: true },
  trendRollover: { table: 'readwrite' },
  // Reads the feed (which may fill a gap) and each connection's cursor; posts to the connections.
  push: { table: 'readwrite', connections: 'manage' },
};

// Push channel (issue 26): the WebSocket API's routes, beside the REST table. Infra makes a function
// per row in the push nested stack (infra/push-stack.ts), the local runtime's WebSocket stand-in
// (local/gateway/push-gateway.ts) invokes the same handlers, and docs/events.md ("Push") describes them.

export interface SocketRoute {
  name: string;
  /** API Gateway's route key: the handshake, the close, and every message a client sends. */
  routeKey: '$connect' | '$disconnect' | '$default';
  handler: string;
  access: TableAccess;
  /** Posts to connections (the @connections API): the sync sends the backlog. */
  postsToConnections?: boolean;
}

export const socketRoutes: readonly SocketRoute[] = [
  { name: 'pushConnect', routeKey: '$connect', handler: 'functions/push/connect.ts', access: 'readwrite' },
  { name: 'pushDisconnect', routeKey: '$disconnect', handler: 'functions/push/disconnect.ts', access: 'readwrite' },
  {
    name: 'pushSync',
    routeKey: '$default',
    handler: 'functions/push/sync.ts',
    access: 'readwrite',
    postsToConnections: true,
  },
];

/** A socket route's grants. */
export const socketRouteGrant = (route: SocketRoute): FunctionGrant => ({
  table: route.access,
  ...(route.postsToConnections ? { connections: 'manage' } : {}),
});

/** A route's grants. */
export const routeGrant = (route: Route): FunctionGrant => ({
  table: route.access,
  ...(route.sendsToQueue ? { queue: 'send' } : {}),
  ...(route.signingKey ? { signingKey: route.signingKey } : {}),
});

/** When the trend rollover runs: daily, a few minutes after the UTC day begins. */
export const TREND_ROLLOVER_UTC = { hour: 0, minute: 5 } as const;
