/**
 * The one route table. The CDK stack makes one Lambda function per row, the local runtime routes
 * HTTP requests with the same rows, the authorizer's policy reads the portal rows, and the route
 * list of docs/operations.md is generated from it (`npm run routes`), and so is its operation in the
 * OpenAPI document, with the row's words, answers and example from lib/route-docs.ts: beside the
 * table, not in it, so that no function bundles them (the authorizer imports this table) and a
 * change of words redeploys none. Adding a route touches more than this row: CONTRIBUTING.md,
 * "Recipes", lists the files.
 *
 * `handler` is the module path from the repository root; it must export `handler`.
 * `access` and `sendsToQueue` are the function's grants (lib/function-grants.ts): infra grants
 * exactly those, and the local runtime refuses anything else, so a wrong row fails the tests.
 */

import { BASE_PATHS, VERIFY_FUNCTION_TIMEOUT_SECONDS } from './core/settings.ts';
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
  },
  {
    name: 'openApiDocument',
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/openapi.ts',
    auth: false,
    access: 'none',
  },

  // Marketplace
  {
    name: 'listTemplates',
    method: 'GET',
    path: `${m}/templates`,
    handler: 'functions/marketplace/list-templates.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'featuredTemplates',
    method: 'GET',
    path: `${m}/templates/featured`,
    handler: 'functions/marketplace/featured-templates.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'publishTemplate',
    method: 'POST',
    path: `${m}/templates`,
    handler: 'functions/marketplace/publish-template.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'getTemplate',
    method: 'GET',
    path: `${m}/templates/{id}`,
    handler: 'functions/marketplace/get-template.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'updateTemplate',
    method: 'PATCH',
    path: `${m}/templates/{id}`,
    handler: 'functions/marketplace/update-template.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'publishVersion',
    method: 'POST',
    path: `${m}/templates/{id}/versions`,
    handler: 'functions/marketplace/publish-version.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'featureTemplate',
    method: 'PUT',
    path: `${m}/templates/{id}/featured`,
    handler: 'functions/marketplace/feature-template.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'unfeatureTemplate',
    method: 'DELETE',
    path: `${m}/templates/{id}/featured`,
    handler: 'functions/marketplace/unfeature-template.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'installTemplate',
    method: 'POST',
    path: `${m}/templates/{id}/install`,
    handler: 'functions/marketplace/install-template.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'listInstalled',
    method: 'GET',
    path: `${m}/installed`,
    handler: 'functions/marketplace/list-installed.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'upgradeInstall',
    method: 'POST',
    path: `${m}/installed/{template}/upgrade`,
    handler: 'functions/marketplace/upgrade-install.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'compareVersions',
    method: 'GET',
    path: `${m}/templates/{id}/compare`,
    handler: 'functions/marketplace/compare-versions.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'createReview',
    method: 'POST',
    path: `${m}/templates/{id}/reviews`,
    handler: 'functions/marketplace/create-review.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'listReviews',
    method: 'GET',
    path: `${m}/templates/{id}/reviews`,
    handler: 'functions/marketplace/list-reviews.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'changeVersion',
    method: 'PATCH',
    path: `${m}/templates/{id}/versions/{version}`,
    handler: 'functions/marketplace/change-version.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'templateStats',
    method: 'GET',
    path: `${m}/templates/{id}/stats`,
    handler: 'functions/marketplace/template-stats.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'getEventAgents',
    method: 'GET',
    path: `${m}/installed/agents`,
    handler: 'functions/marketplace/get-event-agents.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'setEventAgents',
    method: 'PUT',
    path: `${m}/installed/agents`,
    handler: 'functions/marketplace/set-event-agents.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'createReport',
    method: 'POST',
    path: `${m}/reports`,
    handler: 'functions/marketplace/create-report.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'listReports',
    method: 'GET',
    path: `${m}/reports`,
    handler: 'functions/marketplace/list-reports.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'moderate',
    method: 'POST',
    path: `${m}/moderation/actions`,
    handler: 'functions/marketplace/moderate.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'listModerationActions',
    method: 'GET',
    path: `${m}/moderation/actions`,
    handler: 'functions/marketplace/list-moderation-actions.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'listCategories',
    method: 'GET',
    path: `${m}/categories`,
    handler: 'functions/marketplace/list-categories.ts',
    auth: true,
    access: 'read',
  },

  // Agents and webhooks
  {
    name: 'createAgent',
    method: 'POST',
    path: `${a}/agents`,
    handler: 'functions/agents/create-agent.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'listAgents',
    method: 'GET',
    path: `${a}/agents`,
    handler: 'functions/agents/list-agents.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'getAgent',
    method: 'GET',
    path: `${a}/agents/{id}`,
    handler: 'functions/agents/get-agent.ts',
    auth: true,
    access: 'read',
    portal: true,
  },
  {
    name: 'deleteAgent',
    method: 'DELETE',
    path: `${a}/agents/{id}`,
    handler: 'functions/agents/delete-agent.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'configureWebhook',
    method: 'PATCH',
    path: `${a}/agents/{id}/webhook`,
    handler: 'functions/agents/configure-webhook.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
  },
  {
    name: 'disableWebhook',
    method: 'DELETE',
    path: `${a}/agents/{id}/webhook`,
    handler: 'functions/agents/disable-webhook.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'getWebhookSecret',
    method: 'GET',
    path: `${a}/agents/{id}/webhook/secret`,
    handler: 'functions/agents/get-webhook-secret.ts',
    auth: true,
    access: 'read',
    portal: true,
  },
  {
    name: 'rotateWebhookSecret',
    method: 'POST',
    path: `${a}/agents/{id}/webhook/secret/rotate`,
    handler: 'functions/agents/rotate-webhook-secret.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
  },
  // ed25519 `v1a` signatures (docs/webhooks.md, "ed25519 signatures"): the agent's key pairs and their public halves.
  {
    name: 'getWebhookPublicKeys',
    method: 'GET',
    path: `${a}/agents/{id}/webhook/public-keys`,
    handler: 'functions/agents/get-webhook-public-keys.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'rotateWebhookSigningKey',
    method: 'POST',
    path: `${a}/agents/{id}/webhook/public-keys/rotate`,
    handler: 'functions/agents/rotate-webhook-signing-key.ts',
    auth: true,
    access: 'readwrite',
    signingKey: 'seal',
  },
  {
    name: 'dropWebhookSigningKeys',
    method: 'DELETE',
    path: `${a}/agents/{id}/webhook/public-keys`,
    handler: 'functions/agents/drop-webhook-signing-keys.ts',
    auth: true,
    access: 'readwrite',
  },
  // Public keys are public: receivers fetch an agent's JWKS without a key (the agent id is in every event).
  {
    name: 'getWebhookJwks',
    method: 'GET',
    path: `${a}/webhook-keys/{id}`,
    handler: 'functions/agents/webhook-jwks.ts',
    auth: false,
    access: 'read',
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
  },
  // The filter alone: no handshake again (PATCH …/webhook moves the webhook to PENDING_VERIFICATION).
  {
    name: 'setWebhookFilter',
    method: 'PUT',
    path: `${a}/agents/{id}/webhook/filter`,
    handler: 'functions/agents/set-webhook-filter.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
  },
  {
    name: 'setDestinationFilter',
    method: 'PUT',
    path: `${a}/agents/{id}/destinations/{destination_id}/filter`,
    handler: 'functions/agents/set-destination-filter.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
  },
  // Changes nothing; `readwrite` for its Idempotency-Key answer, the one item it writes.
  {
    name: 'testFilter',
    method: 'POST',
    path: `${a}/agents/{id}/filters/test`,
    handler: 'functions/events/test-filter.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
  },
  // The event catalog is the same for every caller (like /openapi.json): public, served from a build-time file.
  {
    name: 'listEventTypes',
    method: 'GET',
    path: `${a}/event-types`,
    handler: 'functions/events/list-event-types.ts',
    auth: false,
    access: 'none',
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
  },
  {
    name: 'replayEvents',
    method: 'POST',
    path: `${a}/agents/{id}/events/replay`,
    handler: 'functions/events/replay-events.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
  },
  {
    name: 'listDeliveries',
    method: 'GET',
    path: `${a}/agents/{id}/deliveries`,
    handler: 'functions/events/list-deliveries.ts',
    auth: true,
    access: 'read',
    portal: true,
  },
  {
    name: 'getDelivery',
    method: 'GET',
    path: `${a}/agents/{id}/deliveries/{delivery_id}`,
    handler: 'functions/events/get-delivery.ts',
    auth: true,
    access: 'read',
    portal: true,
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
  },
  {
    name: 'listDestinations',
    method: 'GET',
    path: `${a}/agents/{id}/destinations`,
    handler: 'functions/agents/list-destinations.ts',
    auth: true,
    access: 'read',
    portal: true,
  },
  {
    name: 'getDestination',
    method: 'GET',
    path: `${a}/agents/{id}/destinations/{destination_id}`,
    handler: 'functions/agents/get-destination.ts',
    auth: true,
    access: 'read',
    portal: true,
  },
  {
    name: 'deleteDestination',
    method: 'DELETE',
    path: `${a}/agents/{id}/destinations/{destination_id}`,
    handler: 'functions/agents/delete-destination.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
  },
  {
    name: 'verifyDestination',
    method: 'POST',
    path: `${a}/agents/{id}/destinations/{destination_id}/verify`,
    handler: 'functions/agents/verify-destination.ts',
    auth: true,
    access: 'readwrite',
    portal: true,
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
  },
  {
    name: 'revokePortalLink',
    method: 'DELETE',
    path: `${a}/agents/{id}/portal-links/{link_id}`,
    handler: 'functions/agents/revoke-portal-link.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'listContracts',
    method: 'GET',
    path: `${a}/contracts`,
    handler: 'functions/contracts/list-contracts.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'createContract',
    method: 'POST',
    path: `${a}/contracts`,
    handler: 'functions/contracts/create-contract.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'getContract',
    method: 'GET',
    path: `${a}/contracts/{id}`,
    handler: 'functions/contracts/get-contract.ts',
    auth: true,
    access: 'read',
  },
  {
    name: 'fundContract',
    method: 'POST',
    path: `${a}/contracts/{id}/fund`,
    handler: 'functions/contracts/fund-contract.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'recordVerification',
    method: 'POST',
    path: `${a}/contracts/{id}/verification`,
    handler: 'functions/contracts/record-verification.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'releaseContract',
    method: 'POST',
    path: `${a}/contracts/{id}/release`,
    handler: 'functions/contracts/release-contract.ts',
    auth: true,
    access: 'readwrite',
  },
  {
    name: 'refundContract',
    method: 'POST',
    path: `${a}/contracts/{id}/refund`,
    handler: 'functions/contracts/refund-contract.ts',
    auth: true,
    access: 'readwrite',
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
  // Hands each batch's new feed slots to the push worker (lib/events/push-hand-off.ts).
  relay: { table: 'readwrite', queue: 'send', invokes: 'push' },
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
