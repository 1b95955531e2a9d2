/**
 * The contract answers of the API and the contract events, declared once: lib/http/openapi/schemas.ts
 * names them in the OpenAPI document (imported as types elsewhere: no function bundles this module).
 */
import { z } from 'zod';
import { cursorPageOf, timestamp, uuid } from '../core/answer-fields.ts';
import { EVENT_TYPES } from '../core/event-types.ts';
import { ID_PATTERN } from '../core/ids.ts';
import { eventEnvelope } from '../events/feed/answer.ts';
import { contractDataShape } from '../events/feed/event-data.ts';
import { CONTRACT_STATUSES } from './schemas.ts';

const agentId = z.string().regex(ID_PATTERN.agt);
export const contractStatusAnswer = z.enum(CONTRACT_STATUSES);
export const checkAnswer = z.strictObject({
  id: z.string(),
  type: z.string(),
  description: z.string().optional(),
  config: z.record(z.string(), z.unknown()),
});
export const contractAnswer = z.strictObject({
  id: z.string().regex(ID_PATTERN.ctr),
  template_id: uuid,
  template_version: z.string(),
  agent_id: agentId,
  seller_agent_id: agentId.nullable(),
  variables: z.record(z.string(), z.unknown()),
  amount_cents: z.int(),
  status: contractStatusAnswer,
  checks: z.array(checkAnswer).describe('The template checks with `{{variable}}` filled in.'),
  created_at: timestamp,
  updated_at: timestamp,
});
export const contractPageAnswer = cursorPageOf(contractAnswer);

/** The contract kinds of EVENT_TYPES (the template.* kinds are lifecycle's). */
export const CONTRACT_EVENT_TYPES = EVENT_TYPES.filter((t) => !t.startsWith('template.'));
const eventData = { ...contractDataShape, status: contractStatusAnswer };
/** Any contract event (the union's member in the document). */
export const contractEventAnswer = z.strictObject({
  ...eventEnvelope,
  type: z.enum(CONTRACT_EVENT_TYPES),
  data: z.strictObject({
    ...eventData,
    passed: z.boolean().optional(),
    results: z.record(z.string(), z.unknown()).optional(),
  }),
});
/** One contract kind with its own `type` and `data` (the document's `webhooks`). */
export const contractEventOf = (type: (typeof EVENT_TYPES)[number]) =>
  z.strictObject({
    ...eventEnvelope,
    type: z.literal(type),
    data: z.strictObject(
      type === 'contract.verification.completed'
        ? { ...eventData, passed: z.boolean(), results: z.record(z.string(), z.unknown()).optional() }
        : eventData,
    ),
  });

export type Contract = z.infer<typeof contractAnswer>;
