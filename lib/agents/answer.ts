/**
 * The agent answers of the API and the webhook handshake, declared once: lib/http/openapi/schemas.ts
 * names them in the OpenAPI document, and the service's types are inferred from them (imported as
 * types only: no function bundles this module).
 */
import { z } from 'zod';
import { cursorPageOf, timestamp } from '../core/answer-fields.ts';
import { EVENT_TYPES } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';

export const agentIdAnswer = z.string().regex(ID_PATTERN.agt);
export const eventTypeAnswer = z.enum(EVENT_TYPES);
const agentShape = {
  id: agentIdAnswer,
  name: z.string(),
  webhook_url: z.string().nullable(),
  events: z.array(eventTypeAnswer),
  webhook_status: z.enum(['DISABLED', 'PENDING_VERIFICATION', 'ENABLED']),
  created_at: timestamp,
};
export const agentAnswer = z.strictObject(agentShape);
export const configuredAgentAnswer = z.strictObject({
  ...agentShape,
  webhook_secret: z.string().optional().describe('Only in the answer to the first configuration.'),
});
export const agentPageAnswer = cursorPageOf(agentAnswer);
export const webhookSecretAnswer = z.strictObject({ webhook_secret: z.string() });
export const verificationChallengeAnswer = z.strictObject({
  type: z.literal('service.webhook.verify'),
  challenge: z.string(),
  agent_id: agentIdAnswer,
  timestamp,
});
export const challengeReplyAnswer = z.object({ challenge: z.string() });

export type AgentView = z.infer<typeof agentAnswer>;
export type ConfiguredAgent = z.infer<typeof configuredAgentAnswer>;
