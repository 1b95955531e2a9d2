/**
 * `rate_limit` of a webhook (PATCH …/webhook) or an AWS destination (POST …/destinations): the most
 * deliveries a second the owner wants; absent or null = no limit but the service's own
 * (docs/webhooks.md, "Backpressure and rate limits"). Enforced by the delivery workers
 * (lib/events/delivery/rate-limit.ts): the excess waits its turn, never dropped or counted as a
 * failed attempt. In its own module so the destinations' routes take it without the webhook URL policy.
 */
import * as z from '../zod.ts';

export const MAX_RATE_LIMIT = 1000;

export const rateLimitField = z.optional(
  z.nullable(
    z
      .int('Expected whole deliveries a second.')
      .check(
        z.minimum(1, 'At least 1 delivery a second (null removes the limit).'),
        z.maximum(MAX_RATE_LIMIT, `At most ${MAX_RATE_LIMIT} deliveries a second.`),
      ),
  ),
);
