/**
 * The fields the answer schemas (the `answer.ts` beside each domain) share. Answer schemas use
 * zod's full API for the OpenAPI document; only lib/http/openapi/ and tests import them as values
 * (test/architecture/layers.test.ts), a domain imports their inferred types only, so no function
 * bundle carries them.
 */
import { z } from 'zod';
import { type AnyEventType, allEventTypes } from './event-types.ts';

/** `rate_limit` of a webhook or a destination (lib/agents/rate-limit.ts). */
export const rateLimitAnswer = z
  .number()
  .int()
  .nullable()
  .describe(
    'The most deliveries a second the owner allows; the excess waits its turn (never dropped, never a failed attempt). Null: no limit.',
  );

export const timestamp = z.iso.datetime();
export const count = z.int().min(0);
export const uuid = z.uuid();

/** A page of a list that pages by cursor only. */
export const cursorPageOf = <T extends z.ZodType>(item: T) =>
  z.strictObject({ data: z.array(item), next_cursor: z.string().nullable() });

/** A webhook's or an AWS destination's pinned schema versions, by event kind (lib/core/event-versions.ts). */
export const schemaVersionsAnswer = z.strictObject(
  Object.fromEntries(allEventTypes().map((type) => [type, z.int().min(1).optional()])) as Record<
    AnyEventType,
    z.ZodOptional<z.ZodInt>
  >,
);
