/**
 * The answers of the API named as components of the OpenAPI document (lib/http/openapi/document.ts),
 * for the document and the tests that hold every answer to it. Each answer is declared once, as a
 * zod schema beside its domain (`answer.ts`: lib/marketplace/templates/answer.ts, lib/agents/answer.ts,
 * …), whose types the domain infers from it; this module registers those very objects under their
 * names, so the document refers to them by `$ref`. What is composed here is what no one domain owns:
 * the error body, the unions of every event kind. Request shapes are not here: the document reads
 * them from the handlers' own specs. Strict objects: a field the document does not name fails the
 * response tests. Only scripts and tests import this module, never a Lambda bundle.
 */
import { z } from 'zod';
import {
  agentAnswer,
  agentPageAnswer,
  challengeReplyAnswer,
  configuredAgentAnswer,
  eventTypeAnswer,
  jwksAnswer,
  verificationChallengeAnswer,
  webhookPublicKeysAnswer,
  webhookSecretAnswer,
} from '../../agents/answer.ts';
import {
  checkAnswer,
  contractAnswer,
  contractEventAnswer,
  contractEventOf,
  contractPageAnswer,
  contractStatusAnswer,
} from '../../contracts/answer.ts';
import { schemaVersionsAnswer } from '../../core/answer-fields.ts';
import { ERROR_CODES } from '../../core/errors.ts';
import type { ServiceEventType } from '../../core/event-types.ts';
import { EVENT_TYPES } from '../../core/event-types.ts';
import { createdDestinationAnswer, destinationAnswer, destinationPageAnswer } from '../../destinations/answer.ts';
import {
  deliveryAnswer,
  deliveryAttemptAnswer,
  deliveryDetailAnswer,
  deliveryPageAnswer,
  feedEventTypeAnswer,
} from '../../events/delivery/answer.ts';
import {
  agentFilterChangedEventAnswer,
  agentWebhookDisabledEventAnswer,
  agentWebhookFailingEventAnswer,
  agentWebhookUnverifiedEventAnswer,
  eventTypeListAnswer,
  testEventAcceptedAnswer,
  testEventAnswer,
  webhookDisabledEventAnswer,
} from '../../events/feed/answer.ts';
import { replayAcceptedAnswer } from '../../events/replay/answer.ts';
import { customHeaderAnswer, filterTestAnswer } from '../../filters/answer.ts';
import { combinator, filterNode, negation } from '../../filters/grammar.ts';
import { templateDetailsAnswer } from '../../marketplace/answer.ts';
import {
  installationAnswer,
  installDriftAnswer,
  installedEntryAnswer,
  installedPageAnswer,
  upgradedAnswer,
} from '../../marketplace/installs/answer.ts';
import {
  eventAgentsAnswer,
  templateEventAnswer,
  templateEventOf,
  versionChangedAnswer,
} from '../../marketplace/lifecycle/answer.ts';
import {
  moderationActionAnswer,
  moderationActionPageAnswer,
  reportAnswer,
  reportPageAnswer,
} from '../../marketplace/moderation/answer.ts';
import { reviewAnswer, reviewPageAnswer } from '../../marketplace/reviews/answer.ts';
import { templateStatsSeriesAnswer } from '../../marketplace/stats/answer.ts';
import {
  authorAnswer,
  categoryAnswer,
  categoryListAnswer,
  featuredTemplatesAnswer,
  paginationAnswer,
  templateAnswer,
  templatePageAnswer,
  templateStatsAnswer,
  templateSummaryAnswer,
  templateVersionAnswer,
  visibilityAnswer,
} from '../../marketplace/templates/answer.ts';
import { schemaDiffAnswer, versionDiffAnswer } from '../../marketplace/templates/diff-answer.ts';
import { templateSchema } from '../../marketplace/templates/template-schema.ts';
import { portalLinkAnswer } from '../../portal/answer.ts';

export const componentRegistry = z.registry<{ id: string; description?: string }>();
const named = <S extends z.core.$ZodType>(id: string, schema: S, description?: string): S => {
  componentRegistry.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
};

/**
 * Recursive schemas, by their component name: zod names them so in `$defs` (the global registry's
 * `id`), and the document refers to the component instead (document.ts, componentRefs).
 */
export const recursiveComponents = new Map<string, z.core.$ZodType>([
  ['Filter', filterNode],
  ['FilterAndOr', combinator],
  ['FilterNot', negation],
]);
for (const [id, schema] of recursiveComponents) z.globalRegistry.add(schema, { id });
named(
  'Filter',
  filterNode,
  'A content filter (docs/webhooks.md, "Filters"): `and`/`or` of clauses, `not` of one, or a comparison of the event field at `path`.',
);
named('FilterAndOr', combinator, 'Every clause (`and`) or any clause (`or`) matches.');
named('FilterNot', negation, 'The clause does not match.');
named(
  'CustomHeader',
  customHeaderAnswer,
  'A static header sent on every request to the webhook (docs/webhooks.md, "Custom headers").',
);
export const FilterTest = named('FilterTest', filterTestAnswer, 'Whether a filter passed an event, and why not.');

/** Every code the service answers with (lib/core/errors.ts), plus the gateway's own `bad_request`. */
export const ErrorCodes = [...ERROR_CODES, 'bad_request'] as const;

export const ErrorBody = named(
  'Error',
  z.strictObject({
    error: z.strictObject({
      code: z.enum(ErrorCodes),
      message: z.string(),
      details: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional(),
    }),
  }),
  'Every error: a stable machine-readable code, a message for people, and for validation errors one detail per problem.',
);

export const Health = named('Health', z.strictObject({ status: z.literal('ok') }));

named('Category', categoryAnswer);
named('Visibility', visibilityAnswer);
named('Author', authorAnswer);
named('TemplateStats', templateStatsAnswer);
export const TemplateSchema = named('TemplateSchema', templateSchema);
export const TemplateSummary = named(
  'TemplateSummary',
  templateSummaryAnswer,
  'A template in lists: without its schema and versions.',
);
named('TemplateVersion', templateVersionAnswer);
export const Template = named('Template', templateAnswer, 'A template in full, newest version first.');
export const Review = named('Review', reviewAnswer);
export const TemplateDetails = named('TemplateDetails', templateDetailsAnswer, 'A template with its newest reviews.');
named('Pagination', paginationAnswer);
export const TemplatePage = named('TemplatePage', templatePageAnswer);
export const ReviewPage = named('ReviewPage', reviewPageAnswer);
export const FeaturedTemplates = named('FeaturedTemplates', featuredTemplatesAnswer);
export const CategoryList = named('CategoryList', categoryListAnswer);
export const Installation = named('Installation', installationAnswer);
export const VersionChanged = named('VersionChanged', versionChangedAnswer);
export const TemplateStatsSeries = named('TemplateStatsSeries', templateStatsSeriesAnswer);
export const EventAgents = named(
  'EventAgents',
  eventAgentsAnswer,
  "The workspace's agents that receive template.version.* events of the templates it installed.",
);
export const Report = named('Report', reportAnswer);
export const ReportPage = named('ReportPage', reportPageAnswer);
export const ModerationAction = named('ModerationAction', moderationActionAnswer, 'One entry of the audit trail.');
export const ModerationActionPage = named('ModerationActionPage', moderationActionPageAnswer);
named(
  'InstallDrift',
  installDriftAnswer,
  "An install's version and policy, the newest version its policy allows and the newest overall.",
);
named(
  'InstalledTemplate',
  installedEntryAnswer,
  'A template the workspace installed, with its install (version, policy, drift).',
);
export const InstalledPage = named('InstalledPage', installedPageAnswer);
named(
  'SchemaDiff',
  schemaDiffAnswer,
  "Two versions' schemas compared: variables and checks added, removed, changed; breaking computed.",
);
export const VersionDiff = named('VersionDiff', versionDiffAnswer);
export const Upgraded = named(
  'Upgraded',
  upgradedAnswer,
  'The install after an upgrade, and the diff from the version it left.',
);

named('EventType', eventTypeAnswer);
named(
  'SchemaVersions',
  schemaVersionsAnswer,
  "The schema version a webhook's or an AWS destination's deliveries are shaped to, per event kind (`schema_versions` of PATCH …/webhook and POST …/destinations); a kind not named arrives at its current version.",
);
export const Agent = named('Agent', agentAnswer);
export const ConfiguredAgent = named('ConfiguredAgent', configuredAgentAnswer);
export const AgentPage = named('AgentPage', agentPageAnswer);
export const WebhookPublicKeys = named(
  'WebhookPublicKeys',
  webhookPublicKeysAnswer,
  "The agent's live ed25519 public keys (JWKs), current first.",
);
export const Jwks = named('Jwks', jwksAnswer, 'A JSON Web Key Set (RFC 7517) of ed25519 public keys (RFC 8037).');
export const WebhookSecret = named(
  'WebhookSecret',
  webhookSecretAnswer,
  '`whsec_` + 32 random bytes in standard base64 (Standard Webhooks format).',
);

export const PortalLink = named(
  'PortalLink',
  portalLinkAnswer,
  "A link to one agent's portal page, with a token that lasts at most an hour.",
);

named('ContractStatus', contractStatusAnswer);
const ContractEvent = named('ContractEvent', contractEventAnswer);
const TemplateEvent = named(
  'TemplateEvent',
  templateEventAnswer,
  "A version of a template the agent's workspace installed was deprecated or yanked (to the agents the workspace chose).",
);
export const Event = named(
  'Event',
  z.union([ContractEvent, TemplateEvent]),
  'One copy of a contract or template event, for one agent: the body of a webhook delivery, an item of the feed and of the stream.',
);
/** The contract and template events, each with its own `type`, for the document's `webhooks`. */
export const contractEvents = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, type.startsWith('template.') ? templateEventOf(type) : contractEventOf(type)]),
) as unknown as Record<(typeof EVENT_TYPES)[number], z.ZodType>;
/** Kinds the service emits itself: in the feed and the stream; `service.webhook.test` is also delivered. */
// Named for the deliveries' `event_type`, which refers to it.
named('FeedEventType', feedEventTypeAnswer);
const TestEvent = named(
  'TestEvent',
  testEventAnswer,
  'Sent by POST …/webhook/test to the ENABLED webhook, whatever kinds it subscribes to.',
);
const WebhookDisabledEvent = named(
  'WebhookDisabledEvent',
  webhookDisabledEventAnswer,
  'The webhook was disabled by the service: every attempt failed for 5 days, or the endpoint answered 410 Gone. In the feed and the stream only (the webhook is disabled).',
);
const AgentWebhookDisabledEvent = named(
  'AgentWebhookDisabledEvent',
  agentWebhookDisabledEventAnswer,
  "An agent's webhook of the account was disabled (operational event: every agent of the account gets it).",
);
const AgentWebhookFailingEvent = named(
  'AgentWebhookFailingEvent',
  agentWebhookFailingEventAnswer,
  "An agent's webhook of the account keeps failing (operational event: every agent of the account gets it).",
);
const AgentWebhookUnverifiedEvent = named(
  'AgentWebhookUnverifiedEvent',
  agentWebhookUnverifiedEventAnswer,
  "An agent's webhook of the account failed its periodic re-verification and is PENDING_VERIFICATION again (operational event).",
);
const AgentFilterChangedEvent = named(
  'AgentFilterChangedEvent',
  agentFilterChangedEventAnswer,
  "The content filter of one of the agent's subscriptions changed (in that agent's feed only; applies to events made after it).",
);
/** The service's own kinds (not configurable): same envelope, their own `data`. */
export const serviceEvents: Record<ServiceEventType, z.ZodType> = {
  'service.webhook.test': TestEvent,
  'service.webhook.disabled': WebhookDisabledEvent,
  'agent.webhook.disabled': AgentWebhookDisabledEvent,
  'agent.webhook.failing': AgentWebhookFailingEvent,
  'agent.webhook.unverified': AgentWebhookUnverifiedEvent,
  'agent.filter.changed': AgentFilterChangedEvent,
};
export const EventTypeList = named('EventTypeList', eventTypeListAnswer, 'Every event kind the service sends.');
export const FeedEvent = named(
  'FeedEvent',
  z.union([
    Event,
    TestEvent,
    WebhookDisabledEvent,
    AgentWebhookDisabledEvent,
    AgentWebhookFailingEvent,
    AgentWebhookUnverifiedEvent,
    AgentFilterChangedEvent,
  ]),
  'An item of the feed and the stream: a contract event or one of the service.* events.',
);
export const EventPage = named(
  'EventPage',
  z.strictObject({ data: z.array(FeedEvent), next_cursor: z.string().nullable() }),
);
export const Delivery = named('Delivery', deliveryAnswer);
export const Destination = named(
  'Destination',
  destinationAnswer,
  'An SQS queue or EventBridge bus of the agent\'s owner, delivered to with the service\'s role (docs/webhooks.md, "AWS destinations").',
);
export const CreatedDestination = named('CreatedDestination', createdDestinationAnswer);
export const DestinationList = named('DestinationList', destinationPageAnswer);
export const DeliveryAttempt = named('DeliveryAttempt', deliveryAttemptAnswer);
export const DeliveryDetail = named('DeliveryDetail', deliveryDetailAnswer);
export const TestEventAccepted = named('TestEventAccepted', testEventAcceptedAnswer);
export const ReplayAccepted = named('ReplayAccepted', replayAcceptedAnswer);
export const DeliveryPage = named('DeliveryPage', deliveryPageAnswer);

named('Check', checkAnswer);
export const Contract = named('Contract', contractAnswer);
export const ContractPage = named('ContractPage', contractPageAnswer);

export const VerificationChallenge = named(
  'VerificationChallenge',
  verificationChallengeAnswer,
  'Sent by POST /api/v1/agents/{id}/webhook/verify; the endpoint answers 200 with {"challenge": <the token, byte for byte>} within 10 seconds.',
);
export const ChallengeReply = named('ChallengeReply', challengeReplyAnswer);
