/**
 * The agent answers of the API and the webhook handshake, declared once: lib/http/openapi/schemas.ts
 * names them in the OpenAPI document, and the service's types are inferred from them (imported as
 * types only: no function bundles this module).
 */
import { z } from 'zod';
import { cursorPageOf, rateLimitAnswer, schemaVersionsAnswer, timestamp } from '../core/answer-fields.ts';
import { EVENT_TYPES } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { customHeaderAnswer, filterAnswer } from '../filters/answer.ts';

export const agentIdAnswer = z.string().regex(ID_PATTERN.agt);
export const eventTypeAnswer = z.enum(EVENT_TYPES);
const agentShape = {
  id: agentIdAnswer,
  name: z.string(),
  webhook_url: z.string().nullable(),
  events: z.array(eventTypeAnswer),
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
  schema_versions: schemaVersionsAnswer,
  rate_limit: rateLimitAnswer,
  filter: filterAnswer,
  filter_never_matches: z
    .boolean()
    .describe(
      'True when no event the webhook subscribes to can pass `filter` (allowed, but nothing will be delivered but the test and operational events).',
    ),
  headers: z
    .array(customHeaderAnswer)
    .describe('Static headers sent on every request to the webhook: deliveries, the handshake and the test event.'),
  created_at: timestamp,
  webhook_circuit: z
    .strictObject({
      state: z
        .enum(['closed', 'open', 'probing'])
        .describe('`open`: no POST until `open_until`; `probing`: one attempt decides; `closed`: delivering.'),
      failures: z.int().min(0).describe('Delivery attempts failed in a row.'),
      open_until: timestamp.nullable(),
      max_requests_at_once: z
        .int()
        .min(1)
        .nullable()
        .describe(
          'Delivery requests this endpoint may have open at once, across every worker: null once it has answered its handshake, or a batch of deliveries with 2xx each, within 5 s (no cap but the workers\' own); 2 while it is in doubt (failing, slower than that, or not verified: docs/webhooks.md, "Backpressure").',
        ),
    })
    .describe('The webhook\'s circuit (docs/webhooks.md, "Backpressure"): paused after repeated failures.'),
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

const publicJwkShape = {
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().describe('The 32-byte public key, base64url.'),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
};
export const webhookPublicKeysAnswer = z.strictObject({
  v1a: z.boolean().describe('Whether deliveries carry `v1a` (ed25519) signatures.'),
  keys: z.array(
    z.strictObject({
      ...publicJwkShape,
      status: z.enum(['current', 'previous']),
      created_at: timestamp,
      expires_at: timestamp.nullable().describe('When the previous key stops signing; null for the current key.'),
    }),
  ),
});
export const jwksAnswer = z.strictObject({ keys: z.array(z.strictObject(publicJwkShape)) });

export type AgentView = z.infer<typeof agentAnswer>;
export type ConfiguredAgent = z.infer<typeof configuredAgentAnswer>;
