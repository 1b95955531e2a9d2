/**
 * The `data` of every event kind, declared once (docs/webhooks.md, "Events checked at emit time").
 * The OpenAPI document's `webhooks` and the catalog (`generated/event-types.json`) are built from
 * these schemas (lib/http/openapi/schemas.ts), and so is `generated/event-data-schemas.json`, their
 * JSON Schemas without the words, which the outbox checks every event against before it is written
 * (event-check.ts): what is checked is what is published. Scripts and tests only: zod/mini would
 * add 26 KB to the delivery worker and the relay, the JSON file and its checker 4 KB.
 */
import { CONTRACT_STATUSES } from '../../core/contract-statuses.ts';
import type { AnyEventType } from '../../core/event-types.ts';
import { ID_PATTERN } from '../../core/ids.ts';
import * as z from '../../zod.ts';

export const contractDataShape = {
  contract_id: z.string().check(z.regex(ID_PATTERN.ctr)),
  status: z.enum(CONTRACT_STATUSES),
  amount_cents: z.int(),
};

const contractData = z.strictObject(contractDataShape);

export const templateEventData = z.strictObject({
  template_id: z.uuid(),
  template_name: z.string(),
  version: z.string(),
  message: z.string().check(z.describe('The deprecation message, or the reason given with the yank (may be empty).')),
  current_version: z.nullable(
    z.string().check(z.describe("The template's current version after the change; null when every version is yanked.")),
  ),
});

export const templatePublishedData = z.strictObject({
  template_id: z.uuid(),
  template_name: z.string(),
  version: z.string().check(z.describe('The version published.')),
  previous_version: z.string().check(z.describe('The current version before it (what the summary compares against).')),
  summary: z
    .string()
    .check(
      z.describe('The computed diff, one line: `variables +a -r ~c, checks +a -r ~c`, and ` (breaking)` when it is.'),
    ),
  breaking: z.boolean(),
  upgraded: z.nullable(
    z
      .strictObject({ from: z.string(), to: z.string() })
      .check(
        z.describe(
          "The workspace's install moved by its policy: from and to (the newest non-breaking version it allows).",
        ),
      ),
  ),
});

export const webhookDisabledData = z.strictObject({
  reason: z
    .enum(['consecutive_failures', 'endpoint_gone'])
    .check(
      z.describe(
        '`consecutive_failures`: every attempt failed for 5 days; `endpoint_gone`: the endpoint answered 410.',
      ),
    ),
  message: z.string().check(z.describe('Why the webhook was disabled, for people.')),
  failing_since: z.optional(
    z.iso.datetime().check(z.describe('With `consecutive_failures`: since when every attempt failed.')),
  ),
  webhook_url: z.nullable(z.string()),
});

const subjectAgent = {
  agent_id: z.string().check(z.regex(ID_PATTERN.agt), z.describe('The agent whose webhook this is about.')),
  agent_name: z.string(),
  webhook_url: z.nullable(z.string()),
};

export const agentWebhookDisabledData = z.strictObject({
  ...subjectAgent,
  reason: z
    .enum(['endpoint_gone', 'consecutive_failures', 'manual'])
    .check(
      z.describe(
        '`endpoint_gone`: a 410 answer; `consecutive_failures`: 5 days of failures; `manual`: DELETE …/webhook.',
      ),
    ),
  message: z.string(),
});

export const agentWebhookFailingData = z.strictObject({
  ...subjectAgent,
  failures: z.int().check(z.minimum(1), z.describe('Failed attempts in a row when its circuit opened.')),
  message: z.string(),
});

export const agentWebhookUnverifiedData = z.strictObject({
  ...subjectAgent,
  failures: z.int().check(z.minimum(1), z.describe('Failed re-verification handshakes in a row.')),
  last_verified_at: z.nullable(z.iso.datetime().check(z.describe('When its last handshake succeeded.'))),
  message: z.string(),
});

export const agentFilterChangedData = z.strictObject({
  ...subjectAgent,
  subscription: z.enum(['webhook', 'destination']),
  destination_id: z.nullable(z.string().check(z.regex(ID_PATTERN.dst))),
  filter: z.nullable(
    z.record(z.string(), z.unknown()).check(z.describe('The filter now in force (docs/webhooks.md, "Filters").')),
  ),
  never_matches: z.boolean().check(z.describe('No event of the subscribed kinds can pass it.')),
  message: z.string(),
});

export const EVENT_DATA = {
  'contract.funded': contractData,
  'contract.released': contractData,
  'contract.refunded': contractData,
  'contract.verification.completed': z.strictObject({
    ...contractDataShape,
    passed: z.boolean(),
    results: z.optional(z.record(z.string(), z.unknown())),
  }),
  'template.version.deprecated': templateEventData,
  'template.version.yanked': templateEventData,
  'template.version.published': templatePublishedData,
  'service.webhook.test': z.strictObject({}),
  'service.webhook.disabled': webhookDisabledData,
  'agent.webhook.disabled': agentWebhookDisabledData,
  'agent.webhook.failing': agentWebhookFailingData,
  'agent.webhook.unverified': agentWebhookUnverifiedData,
  'agent.filter.changed': agentFilterChangedData,
} satisfies Record<AnyEventType, z.ZodMiniType>;
