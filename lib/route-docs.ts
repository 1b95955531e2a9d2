/**
 * What the OpenAPI document and the route samples say of each route of lib/routes.ts, by its name:
 * its words, answers and example request. Read by the docs (lib/http/openapi/document.ts, `npm run
 * openapi`) and the local runtime's samples (local/demo/sample-event.ts), never by infra or a
 * function: the route table stays a routing manifest the authorizer bundles without them.
 * test/openapi.test.ts fails if a route has no entry here or an entry names no route.
 */

import type { ErrorCode } from './core/errors.ts';
import {
  DESTINATION_REGISTRATION_LIMITS,
  JWKS_MAX_AGE_SECONDS,
  KEYLESS_ROUTE_LIMITS,
  VERSION_CHANGE_LIMITS,
  VERSION_NOTICES,
  VISIBILITY_CHANGE_LIMITS,
} from './core/settings.ts';
import { type Route, routes } from './routes.ts';

/**
 * A route's words and answers, beside its row: the summary and description, the success answers
 * (each with the name of its answer schema, a component of lib/http/openapi/schemas.ts) and the
 * errors it can answer besides those every route shares (lib/http/openapi/document.ts adds 400,
 * 401, 404, 413, 415, 429, 500 where they apply). Names, not schemas: the local runtime reads
 * these too (a route's sample event), and carries no zod.
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

/** A row of the route table with its words. */
export type DocumentedRoute = Route & { doc: RouteDoc };

/** Each route's words, by the route's name. */
export const routeDocs: Readonly<Record<string, RouteDoc>> = {
  health: {
    tag: 'Health',
    summary: 'Liveness check (no key)',
    answers: { 200: { description: 'OK', schema: 'Health' } },
  },
  openApiDocument: {
    tag: 'Health',
    summary: 'This OpenAPI document (no key)',
    answers: { 200: { description: 'The OpenAPI 3.1 document.' } },
  },
  listTemplates: {
    tag: 'Marketplace',
    summary: 'Browse, search and sort public templates',
    description:
      'Offset up to 10,000 or a cursor for deeper pages. `search` matches every word as a prefix of a word of name, slug, description or category, and combines with every `sort` (default `popular`) and with `category`; ties are broken newest first. `pagination.total` is exact, except for a multi-word search cut short by its read budget: then it is an upper bound and `total_exact` is false.',
    answers: { 200: { description: 'OK', schema: 'TemplatePage' } },
    example: { query: { sort: 'popular', category: 'http', limit: '10' } },
  },
  featuredTemplates: {
    tag: 'Marketplace',
    summary: 'The featured, trending, new and top-rated lists',
    answers: { 200: { description: 'OK', schema: 'FeaturedTemplates' } },
  },
  publishTemplate: {
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
  getTemplate: {
    tag: 'Marketplace',
    summary: 'A template by id or slug, with its versions and newest reviews',
    answers: { 200: { description: 'OK', schema: 'TemplateDetails' } },
    example: { params: { id: 'http-uptime-check' } },
  },
  updateTemplate: {
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
  publishVersion: {
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
  featureTemplate: {
    tag: 'Marketplace',
    summary: 'Feature a template (operators only; idempotent)',
    answers: { 204: { description: 'Featured.' } },
    errors: ['forbidden'],
    example: { params: { id: 'http-uptime-check' } },
  },
  unfeatureTemplate: {
    tag: 'Marketplace',
    summary: 'Stop featuring a template (operators only; idempotent)',
    answers: { 204: { description: 'Not featured.' } },
    errors: ['forbidden'],
    example: { params: { id: 'http-uptime-check' } },
  },
  installTemplate: {
    tag: 'Marketplace',
    summary: "Install a template into the caller's workspace",
    description:
      "Optional body: `version` (default: the current one; not yanked, not in quarantine) and `policy` (default `minor`): which new versions move the install when they are published, as npm reads `=`, `~` and `^` ranges of the installed version (`pinned`, `patch`, `minor`; a breaking version never moves it). The workspace's contracts are made from the installed version unless a contract names `template_version`.",
    answers: {
      200: {
        description: 'Already installed: the original record, nothing changed (change it with …/upgrade).',
        schema: 'Installation',
      },
      201: { description: 'Installed.', schema: 'Installation' },
    },
    errors: ['template_yanked'],
    example: { params: { id: 'http-uptime-check' } },
  },
  listInstalled: {
    tag: 'Marketplace',
    summary: "Templates installed in the caller's workspace, most recent first, with their drift",
    description:
      "Each with `installation`: the version installed and its policy, whether that version was yanked since (`version_yanked`: it keeps working for the workspace's contracts), the newest version the policy allows (`newest_allowed`) and the newest overall (`newest`; `behind` when the install is older).",
    answers: { 200: { description: 'OK', schema: 'InstalledPage' } },
  },
  upgradeInstall: {
    tag: 'Marketplace',
    summary: "Move the workspace's install to a named version or the newest its policy allows",
    description:
      "Body (optional): `version` (any version not yanked and not in quarantine, older ones too: a rollback) and `policy` (changes the install's policy; without `version`, the move is to the newest version the new policy allows). Unlike upgrades by policy on publish, a breaking version may be asked for: the answer's `diff` (from the version left) says what changed and whether it is breaking. 404 when the workspace has not installed the template.",
    answers: { 200: { description: 'Moved (or already there: `changed: false`).', schema: 'Upgraded' } },
    errors: ['template_yanked'],
    example: { params: { template: 'dataset-row-count' }, body: { version: '1.1.0' } },
  },
  compareVersions: {
    tag: 'Marketplace',
    summary: "The computed difference between two versions' schemas, and the changelogs between them",
    description:
      '`from` and `to` (default: the current version) are versions of the template, either order. Variables and checks added, removed and changed, and `breaking`, computed from the schemas (never declared): a required variable without a default added or made so, a variable removed or its type changed, an enum value taken away, or a check removed. `changelog`: the versions after the older one up to the newer, newest first, at most 100.',
    answers: { 200: { description: 'OK', schema: 'VersionDiff' } },
    example: { params: { id: 'dataset-row-count' }, query: { from: '1.0.0', to: '1.1.0' } },
  },
  createReview: {
    tag: 'Marketplace',
    summary: 'Review a template (once per user)',
    answers: { 201: { description: 'Reviewed.', schema: 'Review' } },
    errors: ['review_exists', 'forbidden'],
    example: {
      params: { id: 'ai-summary-quality' },
      body: { rating: 5, title: 'Does what it says', comment: 'Set up in two minutes.' },
    },
  },
  listReviews: {
    tag: 'Marketplace',
    summary: "A template's reviews, newest first",
    description:
      'A review an operator hid is left out, but for its writer and operators: their first page (no `offset`, no `cursor`) leads with the hidden reviews they may see, marked `hidden: true` — the writer their own, an operator the newest `limit` hidden ones. `total` counts visible reviews only.',
    answers: { 200: { description: 'OK', schema: 'ReviewPage' } },
    example: { params: { id: 'ai-summary-quality' }, query: { limit: '5' } },
  },
  changeVersion: {
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
  templateStats: {
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
  getEventAgents: {
    tag: 'Marketplace',
    summary: "The workspace's agents that receive template events",
    answers: { 200: { description: 'OK', schema: 'EventAgents' } },
  },
  setEventAgents: {
    tag: 'Marketplace',
    summary: "Choose the workspace's agents that receive template events (replaces the list)",
    description:
      "Installing a template is consent to hear of its versions; these agents (at most 10, each the caller's) get `template.version.deprecated` and `template.version.yanked` in their feed and stream, and on their webhook if it subscribes to the kind. An empty list: none do (the default).",
    answers: { 200: { description: 'OK', schema: 'EventAgents' } },
    errors: ['not_found'],
    example: { body: { agent_ids: ['agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC'] } },
  },
  createReport: {
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
  listReports: {
    tag: 'Marketplace',
    summary: 'Open reports, newest first (operators only)',
    answers: { 200: { description: 'OK', schema: 'ReportPage' } },
    errors: ['forbidden'],
  },
  moderate: {
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
  listModerationActions: {
    tag: 'Marketplace',
    summary: 'The moderation audit trail, newest first (operators only)',
    answers: { 200: { description: 'OK', schema: 'ModerationActionPage' } },
    errors: ['forbidden'],
  },
  listCategories: {
    tag: 'Marketplace',
    summary: 'Categories with their number of public templates',
    answers: { 200: { description: 'OK', schema: 'CategoryList' } },
  },
  createAgent: {
    tag: 'Agents and webhooks',
    summary: 'Create an agent (at most 100 per account)',
    answers: { 201: { description: 'Created.', schema: 'Agent', headers: ['Location'] } },
    errors: ['limit_exceeded'],
    example: { body: { name: 'buyer bot' } },
  },
  listAgents: {
    tag: 'Agents and webhooks',
    summary: "The caller's agents, newest first",
    answers: { 200: { description: 'OK', schema: 'AgentPage' } },
    example: { query: { limit: '20' } },
  },
  getAgent: {
    tag: 'Agents and webhooks',
    summary: 'An agent',
    answers: { 200: { description: 'OK', schema: 'Agent' } },
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
  },
  deleteAgent: {
    tag: 'Agents and webhooks',
    summary:
      'Delete an agent: its webhook stops at once, it no longer counts against the 100-agent cap, and it is 404 afterwards',
    description:
      'Deliveries not yet made are not attempted. The agent gets no new events; the feed it had is kept until its events expire (30 days) but can no longer be read through the API, since every route answers 404 for the agent.',
    answers: { 204: { description: 'Deleted.' } },
    example: { params: { id: 'agt_01KAKQ8D1B2C3D4E5F6G7H8J9K' } },
  },
  configureWebhook: {
    tag: 'Agents and webhooks',
    summary: "Set an agent's webhook URL and event kinds",
    description: 'The webhook becomes PENDING_VERIFICATION. The first configuration also returns the signing secret.',
    answers: { 200: { description: 'OK', schema: 'ConfiguredAgent' } },
    example: {
      params: { id: 'agt_01KAKQ8E1B2C3D4E5F6G7H8J9K' },
      body: { webhook_url: 'http://localhost:8080/webhook', events: ['contract.funded', 'contract.released'] },
    },
  },
  disableWebhook: {
    tag: 'Agents and webhooks',
    summary: "Disable an agent's webhook (the secret is kept)",
    answers: { 200: { description: 'OK', schema: 'Agent' } },
    example: { params: { id: 'agt_01KAKQ8E1B2C3D4E5F6G7H8J9K' } },
  },
  getWebhookSecret: {
    tag: 'Agents and webhooks',
    summary: "The webhook's signing secret",
    answers: { 200: { description: 'OK', schema: 'WebhookSecret' } },
    errors: ['webhook_not_configured'],
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
  },
  rotateWebhookSecret: {
    tag: 'Agents and webhooks',
    summary: 'Replace the signing secret, the previous one still signing beside it for a while',
    description:
      "Deliveries sign with the new secret from now on. Until `expire_previous_in_seconds` (0–86400, default 86400) have passed, `webhook-signature` carries `v1,<new> v1,<previous>` so receivers holding either secret verify; `x-service-signature` is the new secret's alone. Rotating again during an overlap keeps only the secret that was current until then as the previous one.",
    answers: { 200: { description: 'OK', schema: 'WebhookSecret' } },
    errors: ['webhook_not_configured'],
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
  },
  getWebhookPublicKeys: {
    tag: 'Agents and webhooks',
    summary: "The webhook's ed25519 public keys (`v1a` signatures), current first",
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    answers: { 200: { description: 'OK', schema: 'WebhookPublicKeys' } },
  },
  rotateWebhookSigningKey: {
    tag: 'Agents and webhooks',
    summary: 'Turn `v1a` (ed25519) signatures on with a new key pair, or rotate it',
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
    description:
      'The first call makes a key pair and turns `v1a` on: `webhook-signature` then carries `v1a,<base64 ed25519 signature>` after the `v1,` entries. A later call rotates: the new key signs from now on, the previous one beside it until `expire_previous_in_seconds` (0–86400, default 86400) have passed, as with secrets. The private key never leaves the service and is stored encrypted.',
    answers: { 200: { description: 'OK', schema: 'WebhookPublicKeys' } },
  },
  dropWebhookSigningKeys: {
    tag: 'Agents and webhooks',
    summary: 'Turn `v1a` signatures off: both key pairs are dropped at once',
    example: { params: { id: 'agt_01KAKQ8E1B2C3D4E5F6G7H8J9K' } },
    answers: { 200: { description: 'OK', schema: 'WebhookPublicKeys' } },
  },
  getWebhookJwks: {
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
  verifyWebhook: {
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
  sendTestEvent: {
    tag: 'Agents and webhooks',
    summary: 'Send a signed service.webhook.test event to the ENABLED webhook',
    description:
      'Same envelope and headers as contract events, `data: {}`, whatever kinds the webhook subscribes to; in the feed and recorded as a delivery.',
    answers: { 202: { description: 'Queued.', schema: 'TestEventAccepted' } },
    errors: ['webhook_not_configured'],
    example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' } },
  },
  setWebhookFilter: {
    tag: 'Agents and webhooks',
    summary: "Set or remove the webhook's content filter (no new handshake)",
    description:
      "Only events the filter passes are delivered to the webhook, judged on `data` at its pinned schema versions; the others cost no delivery record, queue message or POST. Applies to events made after the change, which is recorded in the agent's feed as `agent.filter.changed`. `null` removes it. A filter that no subscribed event can pass is allowed, and flagged by `filter_never_matches`. The test event and the operational events are never filtered.",
    answers: { 200: { description: 'The agent with its filter.', schema: 'Agent' } },
    example: {
      params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' },
      body: { filter: { op: 'gte', path: 'data.amount_cents', value: 10000 } },
    },
  },
  setDestinationFilter: {
    tag: 'Agents and webhooks',
    summary: "Set or remove an AWS destination's content filter",
    description:
      "As PUT …/webhook/filter, for one of the agent's destinations: judged by the relay, with the filter the destination had when each event was made.",
    answers: { 200: { description: 'The destination with its filter.', schema: 'Destination' } },
    example: {
      params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', destination_id: 'dst_01KAKQ8F1B2C3D4E5F6G7H8J9K' },
      body: { filter: { op: 'in', path: 'data.status', values: ['FUNDED', 'RELEASED'] } },
    },
  },
  testFilter: {
    tag: 'Agents and webhooks',
    summary: 'Test a content filter against an event, and see which clause failed',
    description:
      "Evaluates `filter` (absent: the subscription's own) against `event` as given, the agent's event `event_id`, or else its newest event, as the webhook (or the destination `destination_id`) would receive it: `data` at its pinned schema versions. Answers whether it matched, the clause that decided a non-match (where it stands in the filter, and why), and whether no event of the subscribed kinds can ever pass it. Changes nothing.",
    answers: { 200: { description: 'The verdict.', schema: 'FilterTest' } },
    example: {
      params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' },
      body: {
        filter: {
          op: 'and',
          clauses: [
            { op: 'eq', path: 'type', value: 'contract.funded' },
            { op: 'gte', path: 'data.amount_cents', value: 10000 },
          ],
        },
        event: {
          type: 'contract.funded',
          data: { contract_id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K', status: 'FUNDED', amount_cents: 2500 },
        },
      },
    },
  },
  listEventTypes: {
    tag: 'Events and deliveries',
    summary:
      'The event catalog: every kind, whether a webhook can subscribe to it, and the JSON Schema of its event object (no key)',
    answers: { 200: { description: 'OK', schema: 'EventTypeList' } },
  },
  listAgentEvents: {
    tag: 'Events and deliveries',
    summary: "The agent's events after a cursor, oldest first (polling)",
    answers: { 200: { description: 'OK', schema: 'EventPage' } },
    example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' }, query: { limit: '20' } },
  },
  streamAgentEvents: {
    tag: 'Events and deliveries',
    summary: "The agent's events as server-sent events",
    description:
      'Each event is an SSE message with `id` (the event id), `event` (its type) and `data` (the Event object as JSON). A comment line every 10 s keeps the connection open; the stream ends before the function times out and `EventSource` resumes with `Last-Event-ID`. Where it starts: after `Last-Event-ID` when sent; else `since` = `now` (only events from now on), an ISO 8601 time (events from the first one created at or after it) or an event id (after it); else `after`; with none of them it replays the whole retained feed (30 days). A start from `since` is sent first as an `id:` line without data, so a reconnect resumes from it.',
    answers: { 200: { description: 'A stream of server-sent events.' } },
    example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' } },
  },
  replayEvents: {
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
  listDeliveries: {
    tag: 'Events and deliveries',
    summary: "The agent's webhook deliveries, newest first",
    description:
      '`?status=failed` (schedule spent) and `?status=pending` (waiting for a retry after a failed attempt) read an index of failures only; `?status=succeeded` filters the newest-first list, so a page may be short or empty with a `next_cursor`: follow it until it is null.',
    answers: { 200: { description: 'OK', schema: 'DeliveryPage' } },
    example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC' } },
  },
  getDelivery: {
    tag: 'Events and deliveries',
    summary: 'One delivery with its attempt history',
    answers: { 200: { description: 'OK', schema: 'DeliveryDetail' } },
    example: { params: { id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC', delivery_id: 'dlv_0000000001FHNDNP00AKF8NB3J' } },
  },
  retryDelivery: {
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
  createDestination: {
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
  listDestinations: {
    tag: 'Agents and webhooks',
    summary: "The agent's AWS destinations, oldest first",
    answers: { 200: { description: 'OK', schema: 'DestinationList' } },
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
  },
  getDestination: {
    tag: 'Agents and webhooks',
    summary: 'One AWS destination, with its verification state and the policy to apply',
    answers: { 200: { description: 'OK', schema: 'Destination' } },
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', destination_id: 'dst_01KAKQ8F1B2C3D4E5F6G7H8J9K' } },
  },
  deleteDestination: {
    tag: 'Agents and webhooks',
    summary: 'Remove an AWS destination: nothing more is sent to it',
    answers: { 204: { description: 'Deleted.' } },
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', destination_id: 'dst_01KAKQ8G1B2C3D4E5F6G7H8J9K' } },
  },
  verifyDestination: {
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
  createPortalLink: {
    tag: 'Agents and webhooks',
    summary: "A link to the agent's portal page (owner only)",
    description:
      "The URL opens the portal page for this agent; its fragment carries a token (`pt_…`) that lasts at most an hour (`expires_in_seconds`, default 3600), may call only this agent's portal routes, is stored only as its SHA-256 and can be revoked. Never an API key.",
    answers: { 201: { description: 'Created.', schema: 'PortalLink' } },
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K' }, body: { expires_in_seconds: 600 } },
  },
  revokePortalLink: {
    tag: 'Agents and webhooks',
    summary: 'Revoke a portal link (owner only; idempotent)',
    answers: { 204: { description: 'Revoked.' } },
    example: { params: { id: 'agt_01KAKQ8A1B2C3D4E5F6G7H8J9K', link_id: 'pl_00000000000000d0' } },
  },
  listContracts: {
    tag: 'Contracts',
    summary: "The caller's contracts (as buyer or seller), newest first",
    description:
      "`status` filters by status; `agent_id` (one of the caller's agents, else 404) keeps the contracts that agent is a party to. Cursor paging with `next_cursor`. Contracts created before this list existed appear once they move again.",
    answers: { 200: { description: 'OK', schema: 'ContractPage' } },
    errors: ['not_found'],
    example: { query: { status: 'FUNDED', limit: '20' } },
  },
  createContract: {
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
  getContract: {
    tag: 'Contracts',
    summary: 'A contract',
    answers: { 200: { description: 'OK', schema: 'Contract' } },
    example: { params: { id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
  },
  fundContract: {
    tag: 'Contracts',
    summary: 'CREATED → FUNDED; emits contract.funded',
    answers: { 200: { description: 'OK', schema: 'Contract' } },
    errors: ['invalid_transition', 'forbidden'],
    example: { params: { id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K' } },
  },
  recordVerification: {
    tag: 'Contracts',
    summary: 'FUNDED → VERIFIED or VERIFICATION_FAILED; emits contract.verification.completed',
    answers: { 200: { description: 'OK', schema: 'Contract' } },
    errors: ['invalid_transition', 'forbidden'],
    example: {
      params: { id: 'ctr_01KAKQ8B1B2C3D4E5F6G7H8J9K' },
      body: { passed: true, results: { http_status: 200 } },
    },
  },
  releaseContract: {
    tag: 'Contracts',
    summary: 'VERIFIED → RELEASED; emits contract.released',
    answers: { 200: { description: 'OK', schema: 'Contract' } },
    errors: ['invalid_transition', 'forbidden'],
    example: { params: { id: 'ctr_01KAKQ8C1B2C3D4E5F6G7H8J9K' } },
  },
  refundContract: {
    tag: 'Contracts',
    summary: '→ REFUNDED; emits contract.refunded',
    answers: { 200: { description: 'OK', schema: 'Contract' } },
    errors: ['invalid_transition', 'forbidden'],
    example: { params: { id: 'ctr_01KAKQ8D1B2C3D4E5F6G7H8J9K' } },
  },
};

/** The rows of `table` with their words from `docs`; a row without any is an error. */
export function documented(
  table: readonly Route[],
  docs: Readonly<Record<string, RouteDoc>> = routeDocs,
): DocumentedRoute[] {
  return table.map((route) => {
    const doc = docs[route.name];
    if (!doc) throw new Error(`${route.name} has no entry in lib/route-docs.ts`);
    return { ...route, doc };
  });
}

/** The route table with its words. */
export const documentedRoutes: readonly DocumentedRoute[] = documented(routes);
