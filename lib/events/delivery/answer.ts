/**
 * The delivery answers of the API (GET …/deliveries and …/deliveries/:id), declared once as zod
 * schemas: lib/http/openapi/schemas.ts names them (registering these very objects, so the
 * document refers to them by name) in the OpenAPI document (and the client's types
 * are generated from that), and the service's types are inferred from them (record.ts imports
 * only the types, so no function bundles this module or zod's full API).
 */
import { z } from 'zod';
import { EVENT_TYPES, SERVICE_EVENT_TYPES } from '../../core/event-types.ts';
import { ID_PATTERN } from '../../core/ids.ts';
import { DELIVERY_STATUSES } from '../feed/event.ts';
import { ATTEMPT_ERRORS } from './attempt-history.ts';

const timestamp = z.iso.datetime();
const count = z.int().min(0);

/** Any kind in an agent's feed: the contract kinds and the `service.*` kinds. */
export const feedEventTypeAnswer = z.enum([...EVENT_TYPES, ...SERVICE_EVENT_TYPES]);

/** The fields a delivery shows everywhere; the list adds `attempts` (a count), the single read the history. */
const deliveryShape = {
  id: z.string().regex(ID_PATTERN.dlv),
  event_id: z.string().regex(ID_PATTERN.evt),
  event_type: feedEventTypeAnswer,
  destination_id: z
    .string()
    .regex(ID_PATTERN.dst)
    .nullable()
    .describe("The AWS destination it goes to; null for the agent's webhook."),
  status: z.enum(DELIVERY_STATUSES),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: timestamp.nullable(),
  created_at: timestamp,
  contract_id: z
    .string()
    .nullable()
    .describe(
      "The contract its event is about; null for a `service.*` event, or a record older than the event's copy on it.",
    ),
  replay: z
    .boolean()
    .describe('Made by a replay (POST …/events/replay): the same event sent again, as a delivery of its own.'),
};

export const deliveryAnswer = z.strictObject({ ...deliveryShape, attempts: count });

export const deliveryAttemptAnswer = z.strictObject({
  attempt: z.int().min(1),
  started_at: timestamp,
  duration_ms: count,
  status_code: z.int().nullable().describe("The endpoint's HTTP status; null without an answer."),
  error: z.enum(ATTEMPT_ERRORS).nullable().describe('Null on success, otherwise what went wrong.'),
  response_body: z.string().nullable().describe('The first 1 KiB of the answer, as text; null without an answer.'),
});

export const deliveryDetailAnswer = z.strictObject({
  ...deliveryShape,
  attempt_count: count.describe('Every attempt made; the history keeps the newest 50.'),
  attempts: z.array(deliveryAttemptAnswer).describe('Oldest first.'),
  payload: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('The event as POSTed (the request body); null on a record made before deliveries kept it.'),
});

export const deliveryPageAnswer = z.strictObject({ data: z.array(deliveryAnswer), next_cursor: z.string().nullable() });

export type DeliveryAnswer = z.infer<typeof deliveryAnswer>;
export type DeliveryDetailAnswer = z.infer<typeof deliveryDetailAnswer>;
export type DeliveryPageAnswer = z.infer<typeof deliveryPageAnswer>;
