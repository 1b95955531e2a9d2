/**
 * The event envelope and the service's own events as the API shows them, declared once (see
 * lib/events/delivery/answer.ts). The contract and template events are declared by what emits
 * them (lib/contracts/answer.ts, lib/marketplace/lifecycle/answer.ts) on this envelope; the unions
 * of every kind are composed in lib/http/openapi/schemas.ts, above both.
 */
import { z } from 'zod';
import { timestamp } from '../../core/answer-fields.ts';
import { ID_PATTERN } from '../../core/ids.ts';
import {
  agentFilterChangedData,
  agentWebhookDisabledData,
  agentWebhookFailingData,
  agentWebhookUnverifiedData,
  webhookDisabledData,
} from './event-data.ts';

/** What every event object has besides its `type` and `data`. */
export const eventEnvelope = {
  id: z.string().regex(ID_PATTERN.evt),
  created_at: timestamp,
  agent_id: z.string().regex(ID_PATTERN.agt),
  schema_version: z
    .int()
    .min(1)
    .describe("The version of this kind's schema the event was made with (the catalog lists each kind's current one)."),
};
export const testEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('service.webhook.test'),
  data: z.strictObject({}),
});
export const webhookDisabledEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('service.webhook.disabled'),
  data: webhookDisabledData,
});
/** The operational events (lib/events/feed/operational.ts): to every agent of the account. */
export const agentWebhookDisabledEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('agent.webhook.disabled'),
  data: agentWebhookDisabledData,
});
export const agentWebhookFailingEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('agent.webhook.failing'),
  data: agentWebhookFailingData,
});
export const agentWebhookUnverifiedEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('agent.webhook.unverified'),
  data: agentWebhookUnverifiedData,
});
export const agentFilterChangedEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('agent.filter.changed'),
  data: agentFilterChangedData,
});
export const testEventAcceptedAnswer = z.strictObject({ event_id: z.string().regex(ID_PATTERN.evt) });
export const eventTypeListAnswer = z.strictObject({
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
});
