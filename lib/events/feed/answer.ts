/**
 * The event envelope and the service's own events as the API shows them, declared once (see
 * lib/events/delivery/answer.ts). The contract and template events are declared by what emits
 * them (lib/contracts/answer.ts, lib/marketplace/lifecycle/answer.ts) on this envelope; the unions
 * of every kind are composed in lib/http/openapi/schemas.ts, above both.
 */
import { z } from 'zod';
import { timestamp } from '../../core/answer-fields.ts';
import { ID_PATTERN } from '../../core/ids.ts';

/** What every event object has besides its `type` and `data`. */
export const eventEnvelope = {
  id: z.string().regex(ID_PATTERN.evt),
  created_at: timestamp,
  agent_id: z.string().regex(ID_PATTERN.agt),
};
export const testEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('service.webhook.test'),
  data: z.strictObject({}),
});
export const webhookDisabledEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.literal('service.webhook.disabled'),
  data: z.strictObject({
    reason: z.literal('consecutive_failures'),
    message: z.string().describe('Why the webhook was disabled, for people.'),
    failing_since: timestamp,
    webhook_url: z.string().nullable(),
  }),
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
      schema: z
        .record(z.string(), z.unknown())
        .describe('JSON Schema (draft 2020-12) of the event object of this type.'),
    }),
  ),
});
