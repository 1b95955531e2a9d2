/**
 * The answers of the API as zod schemas, for the OpenAPI document (lib/http/openapi/document.ts) and the
 * tests that hold every answer to it. Request shapes are not here: the document reads them from the
 * handlers' own specs. Strict objects: a field the document does not name fails the response tests.
 * Only scripts and tests import this module, never a Lambda bundle.
 */
import { z } from 'zod';
import type { ContractStatus as ContractStatusName } from '../../contracts/transitions.ts';
import { ERROR_CODES } from '../../core/errors.ts';
import type { ServiceEventType } from '../../core/event-types.ts';
import { EVENT_TYPES } from '../../core/event-types.ts';
import { ID_PATTERN } from '../../core/ids.ts';
import {
  deliveryAnswer,
  deliveryAttemptAnswer,
  deliveryDetailAnswer,
  deliveryPageAnswer,
  feedEventTypeAnswer,
} from '../../events/delivery/answers.ts';
import {
  agentWebhookDisabledData,
  agentWebhookFailingData,
  agentWebhookUnverifiedData,
  CONTRACT_STATUSES,
  contractDataShape,
  templateEventData,
  webhookDisabledData,
} from '../../events/feed/event-data.ts';
import { MODERATION_ACTIONS, REPORT_REASONS } from '../../marketplace/moderation/schemas.ts';
import { CATEGORIES, VISIBILITIES } from '../../marketplace/templates/categories.ts';
import { templateSchema } from '../../marketplace/templates/template-schema.ts';

export const componentRegistry = z.registry<{ id: string; description?: string }>();
const named = <S extends z.core.$ZodType>(id: string, schema: S, description?: string): S => {
  componentRegistry.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
};

const timestamp = z.iso.datetime();
const count = z.int().min(0);
const uuid = z.uuid();

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

const Category = named('Category', z.enum(CATEGORIES));
const Visibility = named('Visibility', z.enum(VISIBILITIES));
const Author = named('Author', z.strictObject({ id: uuid, name: z.string(), verified: z.boolean() }));
const TemplateStats = named(
  'TemplateStats',
  z.strictObject({
    installs: count,
    rating_avg: z.number().min(0).max(5),
    rating_count: count,
    contracts_created: count,
  }),
);
export const TemplateSchema = named('TemplateSchema', templateSchema);

const summaryShape = {
  id: uuid,
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  category: Category,
  author: Author,
  version: z.string(),
  stats: TemplateStats,
  visibility: Visibility,
  deprecated: z
    .string()
    .nullable()
    .describe("The current version's deprecation message; null when it is not deprecated."),
  yanked: z.boolean().describe('Every version is yanked: no new installs or contracts; seen by its author only.'),
  hidden: z.boolean().describe('Hidden by an operator: seen by its author and operators only.'),
  created_at: timestamp,
  updated_at: timestamp,
};
export const TemplateSummary = named(
  'TemplateSummary',
  z.strictObject(summaryShape),
  'A template in lists: without its schema and versions.',
);
const versionShape = {
  version: z.string(),
  changelog: z.string(),
  created_at: timestamp,
  deprecated: z
    .strictObject({ message: z.string(), at: timestamp })
    .nullable()
    .describe('Set by the author: still installable, shown as deprecated.'),
  yanked_at: timestamp.nullable().describe('Set by the author: no new installs or contracts of this version.'),
};
const TemplateVersion = named('TemplateVersion', z.strictObject(versionShape));
const templateShape = { ...summaryShape, schema: TemplateSchema, versions: z.array(TemplateVersion) };
export const Template = named('Template', z.strictObject(templateShape), 'A template in full, newest version first.');
export const Review = named(
  'Review',
  z.strictObject({
    id: uuid,
    user: z.strictObject({ id: uuid, name: z.string() }),
    rating: z.int().min(1).max(5),
    title: z.string(),
    comment: z.string(),
    created_at: timestamp,
    hidden: z
      .literal(true)
      .optional()
      .describe(
        'Only on a review an operator hid: shown to its writer and operators alone, on the first page of the list, and not in the rating.',
      ),
  }),
);
export const TemplateDetails = named(
  'TemplateDetails',
  z.strictObject({ ...templateShape, reviews: z.array(Review) }),
  'A template with its newest reviews.',
);
const Pagination = named(
  'Pagination',
  z.strictObject({
    limit: z.int(),
    offset: count,
    total: count.describe('Exact for every list and one-word search; an upper bound when total_exact is false.'),
    total_exact: z
      .literal(false)
      .optional()
      .describe(
        'Present (false) only for a multi-word search cut short by its budget: total is then the count of its rarest word.',
      ),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  }),
);
export const TemplatePage = named(
  'TemplatePage',
  z.strictObject({ data: z.array(TemplateSummary), pagination: Pagination }),
);
export const ReviewPage = named('ReviewPage', z.strictObject({ data: z.array(Review), pagination: Pagination }));
export const FeaturedTemplates = named(
  'FeaturedTemplates',
  z.strictObject({
    featured: z.array(TemplateSummary),
    trending: z.array(TemplateSummary),
    new: z.array(TemplateSummary),
    top_rated: z.array(TemplateSummary),
  }),
);
export const CategoryList = named(
  'CategoryList',
  z.strictObject({ data: z.array(z.strictObject({ name: Category, count })) }),
);
export const Installation = named(
  'Installation',
  z.strictObject({ template_id: uuid, workspace_id: uuid, version: z.string(), installed_at: timestamp }),
);
export const VersionChanged = named(
  'VersionChanged',
  z.strictObject({
    ...versionShape,
    current_version: z
      .string()
      .nullable()
      .describe(
        "The template's current version after the change (the newest not yanked); null when every version is yanked.",
      ),
  }),
);
const dayCounts = {
  installs: count,
  contracts_created: count,
  reviews: count,
  rating_avg: z.number().min(0).max(5).describe('Average of the reviews of the day (2 decimals); 0 without reviews.'),
};
export const TemplateStatsSeries = named(
  'TemplateStatsSeries',
  z.strictObject({
    template_id: uuid,
    from: z.iso.date(),
    to: z.iso.date(),
    granularity: z.literal('day'),
    totals: z.strictObject(dayCounts),
    days: z
      .array(
        z.strictObject({
          date: z.iso.date(),
          ...dayCounts,
          versions: z
            .array(z.strictObject({ version: z.string(), ...dayCounts }))
            .describe('The versions with anything counted that day, newest first.'),
        }),
      )
      .describe('Every UTC day of the window, oldest first.'),
  }),
);
export const EventAgents = named(
  'EventAgents',
  z.strictObject({
    agent_ids: z.array(z.string().regex(ID_PATTERN.agt)),
    updated_at: timestamp.nullable().describe('Null until the workspace first chose.'),
  }),
  "The workspace's agents that receive template.version.* events of the templates it installed.",
);
export const Report = named(
  'Report',
  z.strictObject({
    id: uuid,
    template_id: uuid,
    reviewer_id: uuid.nullable().describe('Set when the report names the review this user wrote of the template.'),
    reporter_id: uuid,
    reason: z.enum(REPORT_REASONS),
    text: z.string(),
    status: z.enum(['open', 'closed']),
    created_at: timestamp,
  }),
);
export const ReportPage = named(
  'ReportPage',
  z.strictObject({ data: z.array(Report), next_cursor: z.string().nullable() }),
);
export const ModerationAction = named(
  'ModerationAction',
  z.strictObject({
    id: uuid,
    action: z.enum(MODERATION_ACTIONS),
    operator: z.strictObject({ id: uuid, name: z.string() }),
    template_id: uuid.nullable(),
    reviewer_id: uuid.nullable(),
    author_id: uuid.nullable(),
    reason: z.string(),
    changed: z.boolean().describe('False when the item already was as asked (the action is recorded all the same).'),
    reports_closed: count.describe('Open reports of the item this action closed (hide and dismiss).'),
    created_at: timestamp,
  }),
  'One entry of the audit trail.',
);
export const ModerationActionPage = named(
  'ModerationActionPage',
  z.strictObject({ data: z.array(ModerationAction), next_cursor: z.string().nullable() }),
);
export const InstalledPage = named(
  'InstalledPage',
  z.strictObject({ data: z.array(TemplateSummary), next_cursor: z.string().nullable() }),
);

const agentId = z.string().regex(ID_PATTERN.agt);
const EventType = named('EventType', z.enum(EVENT_TYPES));
const agentShape = {
  id: agentId,
  name: z.string(),
  webhook_url: z.string().nullable(),
  events: z.array(EventType),
  webhook_status: z.enum(['DISABLED', 'PENDING_VERIFICATION', 'ENABLED']),
  webhook_disabled_reason: z
    .enum(['manual', 'consecutive_failures', 'endpoint_gone'])
    .nullable()
    .describe(
      'Why a configured webhook is DISABLED: `manual` (DELETE …/webhook), `consecutive_failures` (every attempt failed for 5 days), `endpoint_gone` (the endpoint answered 410). Null otherwise, and for an agent that never had a webhook.',
    ),
  last_verified_at: timestamp
    .nullable()
    .describe(
      "When the webhook's last handshake succeeded (POST …/webhook/verify or the periodic re-verification); null before the first.",
    ),
  created_at: timestamp,
};
export const Agent = named('Agent', z.strictObject(agentShape));
export const ConfiguredAgent = named(
  'ConfiguredAgent',
  z.strictObject({
    ...agentShape,
    webhook_secret: z.string().optional().describe('Only in the answer to the first configuration.'),
  }),
);
export const AgentPage = named(
  'AgentPage',
  z.strictObject({ data: z.array(Agent), next_cursor: z.string().nullable() }),
);
export const WebhookSecret = named(
  'WebhookSecret',
  z.strictObject({ webhook_secret: z.string() }),
  '`whsec_` + 32 random bytes in standard base64 (Standard Webhooks format).',
);

const publicJwkShape = {
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().describe('The 32-byte public key, base64url.'),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
};
export const WebhookPublicKeys = named(
  'WebhookPublicKeys',
  z.strictObject({
    v1a: z.boolean().describe('Whether deliveries carry `v1a` (ed25519) signatures.'),
    keys: z.array(
      z.strictObject({
        ...publicJwkShape,
        status: z.enum(['current', 'previous']),
        created_at: timestamp,
        expires_at: timestamp.nullable().describe('When the previous key stops signing; null for the current key.'),
      }),
    ),
  }),
  "The agent's live ed25519 public keys (JWKs), current first.",
);
export const Jwks = named(
  'Jwks',
  z.strictObject({ keys: z.array(z.strictObject(publicJwkShape)) }),
  'A JSON Web Key Set (RFC 7517) of ed25519 public keys (RFC 8037).',
);

// Fails to compile when lib/contracts gains a status the events' list (lib/events/feed/event-data.ts) lacks, or the other way.
const everyStatus: Record<ContractStatusName, true> = Object.fromEntries(
  CONTRACT_STATUSES.map((s) => [s, true]),
) as Record<(typeof CONTRACT_STATUSES)[number], true>;
void everyStatus;
const ContractStatus = named('ContractStatus', z.enum(CONTRACT_STATUSES));
const eventDataShape = { ...contractDataShape, status: ContractStatus };
const eventShape = {
  id: z.string().regex(ID_PATTERN.evt),
  created_at: timestamp,
  agent_id: agentId,
  schema_version: z
    .int()
    .min(1)
    .describe("The version of this kind's schema the event was made with (the catalog lists each kind's current one)."),
};
const isTemplateKind = (type: string) => type.startsWith('template.');
const CONTRACT_KINDS = EVENT_TYPES.filter((t) => !isTemplateKind(t));
const TEMPLATE_KINDS = EVENT_TYPES.filter(isTemplateKind);
const ContractEvent = named(
  'ContractEvent',
  z.strictObject({
    ...eventShape,
    type: z.enum(CONTRACT_KINDS),
    data: z.strictObject({
      ...eventDataShape,
      passed: z.boolean().optional(),
      results: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
);
const TemplateEvent = named(
  'TemplateEvent',
  z.strictObject({ ...eventShape, type: z.enum(TEMPLATE_KINDS), data: templateEventData }),
  "A version of a template the agent's workspace installed was deprecated or yanked (to the agents the workspace chose).",
);
export const Event = named(
  'Event',
  z.union([ContractEvent, TemplateEvent]),
  'One copy of a contract or template event, for one agent: the body of a webhook delivery, an item of the feed and of the stream.',
);
/** The contract and template events, each with its own `type`, for the document's `webhooks`. */
export const contractEvents = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    z.strictObject({
      ...eventShape,
      type: z.literal(type),
      data: isTemplateKind(type)
        ? templateEventData
        : z.strictObject(
            type === 'contract.verification.completed'
              ? { ...eventDataShape, passed: z.boolean(), results: z.record(z.string(), z.unknown()).optional() }
              : eventDataShape,
          ),
    }),
  ]),
) as unknown as Record<(typeof EVENT_TYPES)[number], z.ZodType>;
/** Kinds the service emits itself: in the feed and the stream; `service.webhook.test` is also delivered. */
// Named for the deliveries' `event_type`, which refers to it.
named('FeedEventType', feedEventTypeAnswer);
const TestEvent = named(
  'TestEvent',
  z.strictObject({ ...eventShape, type: z.literal('service.webhook.test'), data: z.strictObject({}) }),
  'Sent by POST …/webhook/test to the ENABLED webhook, whatever kinds it subscribes to.',
);
const WebhookDisabledEvent = named(
  'WebhookDisabledEvent',
  z.strictObject({
    ...eventShape,
    type: z.literal('service.webhook.disabled'),
    data: webhookDisabledData,
  }),
  'The webhook was disabled by the service: every attempt failed for 5 days, or the endpoint answered 410 Gone. In the feed and the stream only (the webhook is disabled).',
);
const AgentWebhookDisabledEvent = named(
  'AgentWebhookDisabledEvent',
  z.strictObject({ ...eventShape, type: z.literal('agent.webhook.disabled'), data: agentWebhookDisabledData }),
  "An agent's webhook of the account was disabled (operational event: every agent of the account gets it).",
);
const AgentWebhookFailingEvent = named(
  'AgentWebhookFailingEvent',
  z.strictObject({ ...eventShape, type: z.literal('agent.webhook.failing'), data: agentWebhookFailingData }),
  "An agent's webhook of the account keeps failing (operational event: every agent of the account gets it).",
);
const AgentWebhookUnverifiedEvent = named(
  'AgentWebhookUnverifiedEvent',
  z.strictObject({ ...eventShape, type: z.literal('agent.webhook.unverified'), data: agentWebhookUnverifiedData }),
  "An agent's webhook of the account failed its periodic re-verification and is PENDING_VERIFICATION again (operational event).",
);
/** The service's own kinds (not configurable): same envelope, their own `data`. */
export const serviceEvents: Record<ServiceEventType, z.ZodType> = {
  'service.webhook.test': TestEvent,
  'service.webhook.disabled': WebhookDisabledEvent,
  'agent.webhook.disabled': AgentWebhookDisabledEvent,
  'agent.webhook.failing': AgentWebhookFailingEvent,
  'agent.webhook.unverified': AgentWebhookUnverifiedEvent,
};
export const EventTypeList = named(
  'EventTypeList',
  z.strictObject({
    data: z.array(
      z.strictObject({
        type: z.string(),
        description: z.string(),
        configurable: z
          .boolean()
          .describe(
            'Whether a webhook subscribes to it with PATCH …/webhook `events`; service kinds are sent whatever the subscription.',
          ),
        schema_version: z
          .int()
          .min(1)
          .describe("The kind's current schema version: what new events of it carry in `schema_version`."),
        schema: z
          .record(z.string(), z.unknown())
          .describe('JSON Schema (draft 2020-12) of the event object of this type.'),
      }),
    ),
  }),
  'Every event kind the service sends.',
);
export const FeedEvent = named(
  'FeedEvent',
  z.union([
    Event,
    TestEvent,
    WebhookDisabledEvent,
    AgentWebhookDisabledEvent,
    AgentWebhookFailingEvent,
    AgentWebhookUnverifiedEvent,
  ]),
  'An item of the feed and the stream: a contract event or one of the service.* events.',
);
export const EventPage = named(
  'EventPage',
  z.strictObject({ data: z.array(FeedEvent), next_cursor: z.string().nullable() }),
);
export const Delivery = named('Delivery', deliveryAnswer);
export const DeliveryAttempt = named('DeliveryAttempt', deliveryAttemptAnswer);
export const DeliveryDetail = named('DeliveryDetail', deliveryDetailAnswer);
export const TestEventAccepted = named(
  'TestEventAccepted',
  z.strictObject({ event_id: z.string().regex(ID_PATTERN.evt) }),
);
export const ReplayAccepted = named(
  'ReplayAccepted',
  z.strictObject({
    replayed: count.describe('Events in the window when the request was made: the job sends each once.'),
  }),
);
export const DeliveryPage = named('DeliveryPage', deliveryPageAnswer);

const Check = named(
  'Check',
  z.strictObject({
    id: z.string(),
    type: z.string(),
    description: z.string().optional(),
    config: z.record(z.string(), z.unknown()),
  }),
);
export const Contract = named(
  'Contract',
  z.strictObject({
    id: z.string().regex(ID_PATTERN.ctr),
    template_id: uuid,
    template_version: z.string(),
    agent_id: agentId,
    seller_agent_id: agentId.nullable(),
    variables: z.record(z.string(), z.unknown()),
    amount_cents: z.int(),
    status: ContractStatus,
    checks: z.array(Check).describe('The template checks with `{{variable}}` filled in.'),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const ContractPage = named(
  'ContractPage',
  z.strictObject({ data: z.array(Contract), next_cursor: z.string().nullable() }),
);

export const VerificationChallenge = named(
  'VerificationChallenge',
  z.strictObject({ type: z.literal('service.webhook.verify'), challenge: z.string(), agent_id: agentId, timestamp }),
  'Sent by POST /api/v1/agents/{id}/webhook/verify; the endpoint answers 200 with {"challenge": <the token, byte for byte>} within 10 seconds.',
);
export const ChallengeReply = named('ChallengeReply', z.object({ challenge: z.string() }));
