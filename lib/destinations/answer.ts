/**
 * The destination answers of the API, declared once as zod schemas: lib/http/openapi/schemas.ts
 * names them in the OpenAPI document, and the service's types are inferred from them (imported as
 * types only, so no function bundles this module).
 */
import { z } from 'zod';
import { rateLimitAnswer, schemaVersionsAnswer } from '../core/answer-fields.ts';
import { EVENT_TYPES } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { filterAnswer } from '../filters/answer.ts';

const timestamp = z.iso.datetime();

const destinationShape = {
  id: z.string().regex(ID_PATTERN.dst),
  agent_id: z.string().regex(ID_PATTERN.agt),
  kind: z.enum(['sqs', 'eventbridge']),
  arn: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  schema_versions: schemaVersionsAnswer,
  rate_limit: rateLimitAnswer,
  filter: filterAnswer,
  filter_never_matches: z
    .boolean()
    .describe('True when no event the destination subscribes to can pass `filter` (allowed, but flagged).'),
  status: z.enum(['PENDING_VERIFICATION', 'ENABLED', 'DISABLED']),
  status_reason: z.string().nullable().describe('Why it is DISABLED; null otherwise.'),
  verification: z.strictObject({
    sent_at: timestamp.nullable().describe('When the latest verification message was sent; null until it was.'),
    expires_at: timestamp.nullable().describe('Until when its code may be posted back.'),
    last_error: z
      .string()
      .nullable()
      .describe('Why the latest verification message could not be sent (apply `policy` first); null once sent.'),
  }),
  verified_at: timestamp.nullable(),
  policy: z
    .record(z.string(), z.unknown())
    .describe(
      "The resource policy to put on the queue or bus: it lets the service's sender role send only while its session is tagged with your account.",
    ),
  key_policy_statement: z
    .record(z.string(), z.unknown())
    .describe(
      "Only for a queue or bus encrypted with your own KMS key: the statement to add to that key's policy. It lets the sender role use the key only through SQS or EventBridge in the destination's region, and only while its session is tagged with your account.",
    ),
  created_at: timestamp,
};

export const destinationAnswer = z.strictObject(destinationShape);
export const createdDestinationAnswer = z.strictObject({
  ...destinationShape,
  signing_secret: z
    .string()
    .describe("Signs this destination's messages (`whsec_…`, as a webhook secret); only in this answer."),
});
export const destinationPageAnswer = z.strictObject({ data: z.array(destinationAnswer) });

export type DestinationAnswer = z.infer<typeof destinationAnswer>;
export type CreatedDestinationAnswer = z.infer<typeof createdDestinationAnswer>;
