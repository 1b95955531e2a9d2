/**
 * What the OpenAPI document says about each route beyond its request shapes (which come from the
 * handlers' own zod specs): a summary, the success answers with their schemas, and the errors a
 * route can answer besides those every route shares (lib/http/openapi/document.ts adds 400, 401, 404,
 * 413, 415, 429, 500 where they apply). Keyed by the route's name in lib/routes.ts; a test fails
 * when a route has no entry here or an entry names no route.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../../core/errors.ts';
import * as S from './schemas.ts';

export interface Success {
  description: string;
  schema?: z.core.$ZodType;
  /** Response headers this answer always carries (besides x-request-id and the CORS ones). */
  headers?: readonly 'Location'[];
}

export interface Operation {
  tag: 'Health' | 'Marketplace' | 'Agents and webhooks' | 'Events and deliveries' | 'Contracts';
  summary: string;
  description?: string;
  success: Readonly<Record<number, Success>>;
  errors?: readonly ErrorCode[];
}

const ok = (schema: z.core.$ZodType, description = 'OK'): Readonly<Record<number, Success>> => ({
  200: { description, schema },
});

export const operations: Readonly<Record<string, Operation>> = {
  health: { tag: 'Health', summary: 'Liveness check (no key)', success: ok(S.Health) },
  openApiDocument: {
    tag: 'Health',
    summary: 'This OpenAPI document (no key)',
    success: { 200: { description: 'The OpenAPI 3.1 document.' } },
  },

  listTemplates: {
    tag: 'Marketplace',
    summary: 'Browse, search and sort public templates',
    description:
      'Offset up to 10,000 or a cursor for deeper pages. `search` matches every word as a prefix of a word of name, slug, description or category, and combines with every `sort` (default `popular`) and with `category`; ties are broken newest first. `pagination.total` is exact, except for a multi-word search cut short by its read budget: then it is an upper bound and `total_exact` is false.',
    success: ok(S.TemplatePage),
  },
  featuredTemplates: {
    tag: 'Marketplace',
    summary: 'The featured, trending, new and top-rated lists',
    success: ok(S.FeaturedTemplates),
  },
  publishTemplate: {
    tag: 'Marketplace',
    summary: 'Publish a template',
    success: { 201: { description: 'Published.', schema: S.Template, headers: ['Location'] } },
    errors: ['slug_taken'],
  },
  getTemplate: {
    tag: 'Marketplace',
    summary: 'A template by id or slug, with its versions and newest reviews',
    success: ok(S.TemplateDetails),
  },
  updateTemplate: {
    tag: 'Marketplace',
    summary: "Change a template's name, description, category or visibility (author only)",
    success: ok(S.Template),
    errors: ['forbidden'],
  },
  publishVersion: {
    tag: 'Marketplace',
    summary: 'Publish a new version (author only)',
    success: { 201: { description: 'Published.', schema: S.Template } },
    errors: ['forbidden', 'version_exists'],
  },
  featureTemplate: {
    tag: 'Marketplace',
    summary: 'Feature a template (operators only; idempotent)',
    success: { 204: { description: 'Featured.' } },
    errors: ['forbidden'],
  },
  unfeatureTemplate: {
    tag: 'Marketplace',
    summary: 'Stop featuring a template (operators only; idempotent)',
    success: { 204: { description: 'Not featured.' } },
    errors: ['forbidden'],
  },
  installTemplate: {
    tag: 'Marketplace',
    summary: "Install a template into the caller's workspace",
    success: {
      201: { description: 'Installed.', schema: S.Installation },
      200: { description: 'Already installed: the original record, nothing changed.', schema: S.Installation },
    },
    errors: ['template_yanked'],
  },
  listInstalled: {
    tag: 'Marketplace',
    summary: "Templates installed in the caller's workspace, most recent first",
    success: ok(S.InstalledPage),
  },
  createReview: {
    tag: 'Marketplace',
    summary: 'Review a template (once per user)',
    success: { 201: { description: 'Reviewed.', schema: S.Review } },
    errors: ['review_exists', 'forbidden'],
  },
  listReviews: { tag: 'Marketplace', summary: "A template's reviews, newest first", success: ok(S.ReviewPage) },
  changeVersion: {
    tag: 'Marketplace',
    summary: 'Deprecate or yank a version, or take either back (author only)',
    description:
      "`deprecated`: a message (the version stays installable and is shown as deprecated) or null to take it back. `yanked`: true stops new installs and contracts of the version (contracts made from it keep their checks); the template's current version falls back to the newest one not yanked, and a template whose every version is yanked leaves every list. Installers hear of it as `template.version.deprecated` / `template.version.yanked` on the agents their workspace chose (`PUT /installed/agents`).",
    success: ok(S.VersionChanged),
    errors: ['forbidden'],
  },
  templateStats: {
    tag: 'Marketplace',
    summary: 'Installs, contracts, reviews and rating per UTC day and version (author only)',
    description:
      'A window of at most 366 days, `from` and `to` included. The counts are kept per day as they happen, so the read costs the same for one day as for a year.',
    success: ok(S.TemplateStatsSeries),
    errors: ['forbidden'],
  },
  getEventAgents: {
    tag: 'Marketplace',
    summary: "The workspace's agents that receive template events",
    success: ok(S.EventAgents),
  },
  setEventAgents: {
    tag: 'Marketplace',
    summary: "Choose the workspace's agents that receive template events (replaces the list)",
    description:
      "Installing a template is consent to hear of its versions; these agents (at most 10, each the caller's) get `template.version.deprecated` and `template.version.yanked` in their feed and stream, and on their webhook if it subscribes to the kind. An empty list: none do (the default).",
    success: ok(S.EventAgents),
    errors: ['not_found'],
  },
  createReport: {
    tag: 'Marketplace',
    summary: 'Report a template or a review to the operators',
    description:
      "One open report per reporter and item (409 `report_exists`); at most 10 reports per user per hour (429). A review is named by its template and its reviewer (`reviewer_id` = the review's `user.id`).",
    success: { 201: { description: 'Reported.', schema: S.Report } },
    errors: ['not_found', 'report_exists'],
  },
  listReports: {
    tag: 'Marketplace',
    summary: 'Open reports, newest first (operators only)',
    success: ok(S.ReportPage),
    errors: ['forbidden'],
  },
  moderate: {
    tag: 'Marketplace',
    summary: 'Hide, restore or dismiss a template or review; verify an author (operators only)',
    description:
      'Every action is recorded in the audit trail (GET /moderation/actions). A hidden template leaves every list, search and the category counts, and only its author and operators see it; a hidden review leaves the review list and the rating. `hide` and `dismiss` close the open reports of the item.',
    success: { 201: { description: 'Done and recorded.', schema: S.ModerationAction } },
    errors: ['forbidden', 'not_found'],
  },
  listModerationActions: {
    tag: 'Marketplace',
    summary: 'The moderation audit trail, newest first (operators only)',
    success: ok(S.ModerationActionPage),
    errors: ['forbidden'],
  },
  listCategories: {
    tag: 'Marketplace',
    summary: 'Categories with their number of public templates',
    success: ok(S.CategoryList),
  },

  createAgent: {
    tag: 'Agents and webhooks',
    summary: 'Create an agent (at most 100 per account)',
    success: { 201: { description: 'Created.', schema: S.Agent, headers: ['Location'] } },
    errors: ['limit_exceeded'],
  },
  listAgents: { tag: 'Agents and webhooks', summary: "The caller's agents, newest first", success: ok(S.AgentPage) },
  getAgent: { tag: 'Agents and webhooks', summary: 'An agent', success: ok(S.Agent) },
  deleteAgent: {
    tag: 'Agents and webhooks',
    summary:
      'Delete an agent: its webhook stops at once, it no longer counts against the 100-agent cap, and it is 404 afterwards',
    description:
      'Deliveries not yet made are not attempted. The agent gets no new events; the feed it had is kept until its events expire (30 days) but can no longer be read through the API, since every route answers 404 for the agent.',
    success: { 204: { description: 'Deleted.' } },
  },
  configureWebhook: {
    tag: 'Agents and webhooks',
    summary: "Set an agent's webhook URL and event kinds",
    description: 'The webhook becomes PENDING_VERIFICATION. The first configuration also returns the signing secret.',
    success: ok(S.ConfiguredAgent),
  },
  disableWebhook: {
    tag: 'Agents and webhooks',
    summary: "Disable an agent's webhook (the secret is kept)",
    success: ok(S.Agent),
  },
  getWebhookSecret: {
    tag: 'Agents and webhooks',
    summary: "The webhook's signing secret",
    success: ok(S.WebhookSecret),
    errors: ['webhook_not_configured'],
  },
  rotateWebhookSecret: {
    tag: 'Agents and webhooks',
    summary: 'Replace the signing secret, the previous one still signing beside it for a while',
    description:
      "Deliveries sign with the new secret from now on. Until `expire_previous_in_seconds` (0–86400, default 86400) have passed, `webhook-signature` carries `v1,<new> v1,<previous>` so receivers holding either secret verify; `x-service-signature` is the new secret's alone. Rotating again during an overlap keeps only the secret that was current until then as the previous one.",
    success: ok(S.WebhookSecret),
    errors: ['webhook_not_configured'],
  },
  verifyWebhook: {
    tag: 'Agents and webhooks',
    summary: 'Run the challenge handshake; ENABLED when the endpoint echoes the token within 10 seconds',
    success: ok(S.Agent),
    errors: [
      'webhook_not_configured',
      'invalid_transition',
      'verification_timeout',
      'challenge_mismatch',
      'endpoint_error',
      'url_validation_error',
    ],
  },
  listEventTypes: {
    tag: 'Events and deliveries',
    summary:
      'The event catalog: every kind, whether a webhook can subscribe to it, and the JSON Schema of its event object (no key)',
    success: ok(S.EventTypeList),
  },
  listAgentEvents: {
    tag: 'Events and deliveries',
    summary: "The agent's events after a cursor, oldest first (polling)",
    success: ok(S.EventPage),
  },
  streamAgentEvents: {
    tag: 'Events and deliveries',
    summary: "The agent's events as server-sent events",
    description:
      'Each event is an SSE message with `id` (the event id), `event` (its type) and `data` (the Event object as JSON). A comment line every 10 s keeps the connection open; the stream ends before the function times out and `EventSource` resumes with `Last-Event-ID`. ' +
      'Where it starts: after `Last-Event-ID` when sent; else `since` = `now` (only events from now on), an ISO 8601 time (events from the first one created at or after it) or an event id (after it); else `after`; with none of them it replays the whole retained feed (30 days). A start from `since` is sent first as an `id:` line without data, so a reconnect resumes from it.',
    success: { 200: { description: 'A stream of server-sent events.' } },
  },
  replayEvents: {
    tag: 'Events and deliveries',
    summary: "Send the agent's events of a time window to its ENABLED webhook again",
    description:
      'Every event created in [`since`, `until`) (default until: now; at most 30 days) of the kinds in `types` (default: every kind the webhook subscribes to; an unsubscribed kind is 400) goes to the webhook again as a new delivery with the same event id, including events from before the webhook was enabled. ' +
      '`replayed` is the number of those events when the request was made; they are sent by a background job, a page of 100 at a time, and show in the delivery list. The job stops if the webhook stops being ENABLED. At most 5 replays per agent per hour (429 beyond).',
    success: { 202: { description: 'Accepted: the job sends the events.', schema: S.ReplayAccepted } },
    errors: ['webhook_not_configured'],
  },
  listDeliveries: {
    tag: 'Events and deliveries',
    summary: "The agent's webhook deliveries, newest first",
    success: ok(S.DeliveryPage),
  },
  getDelivery: {
    tag: 'Events and deliveries',
    summary: 'One delivery with its attempt history',
    success: ok(S.DeliveryDetail),
  },
  retryDelivery: {
    tag: 'Events and deliveries',
    summary: 'One extra attempt now, outside the retry schedule',
    description:
      'A pending delivery keeps its scheduled attempts (none is used up or moved); a failed one goes back to pending for this attempt; a succeeded one is 409 `invalid_transition` unless the body is `{"force": true}`.',
    success: { 202: { description: 'Queued.', schema: S.Delivery } },
    errors: ['webhook_not_configured', 'invalid_transition'],
  },
  sendTestEvent: {
    tag: 'Agents and webhooks',
    summary: 'Send a signed service.webhook.test event to the ENABLED webhook',
    description:
      'Same envelope and headers as contract events, `data: {}`, whatever kinds the webhook subscribes to; in the feed and recorded as a delivery.',
    success: { 202: { description: 'Queued.', schema: S.TestEventAccepted } },
    errors: ['webhook_not_configured'],
  },

  listContracts: {
    tag: 'Contracts',
    summary: "The caller's contracts (as buyer or seller), newest first",
    description:
      "`status` filters by status; `agent_id` (one of the caller's agents, else 404) keeps the contracts that agent is a party to. Cursor paging with `next_cursor`. Contracts created before this list existed appear once they move again.",
    success: ok(S.ContractPage),
    errors: ['not_found'],
  },
  createContract: {
    tag: 'Contracts',
    summary: 'Create a contract from a template',
    success: { 201: { description: 'Created.', schema: S.Contract, headers: ['Location'] } },
    errors: ['not_found', 'template_yanked'],
  },
  getContract: { tag: 'Contracts', summary: 'A contract', success: ok(S.Contract) },
  fundContract: {
    tag: 'Contracts',
    summary: 'CREATED → FUNDED; emits contract.funded',
    success: ok(S.Contract),
    errors: ['invalid_transition', 'forbidden'],
  },
  recordVerification: {
    tag: 'Contracts',
    summary: 'FUNDED → VERIFIED or VERIFICATION_FAILED; emits contract.verification.completed',
    success: ok(S.Contract),
    errors: ['invalid_transition', 'forbidden'],
  },
  releaseContract: {
    tag: 'Contracts',
    summary: 'VERIFIED → RELEASED; emits contract.released',
    success: ok(S.Contract),
    errors: ['invalid_transition', 'forbidden'],
  },
  refundContract: {
    tag: 'Contracts',
    summary: '→ REFUNDED; emits contract.refunded',
    success: ok(S.Contract),
    errors: ['invalid_transition', 'forbidden'],
  },
};
