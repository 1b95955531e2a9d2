/**
 * The retry schedule of webhook deliveries: entry i is the wait before attempt i + 1, so entry 0
 * (always 0) is the first attempt. The default is Svix-like: 9 attempts over about 37.6 h, first
 * retry after 30 s. Each wait must fit one SQS visibility timeout (at most 12 h), because the
 * delivery worker parks a failed message by changing its visibility.
 *
 * DELIVERY_RETRY_DELAYS_SECONDS ("0,1,1") overrides it, read on every call so tests can run the
 * whole schedule in seconds.
 */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [0, 30, 300, 1800, 7200, 18000, 36000, 36000, 36000];

/** SQS's maximum visibility timeout. */
export const MAX_DELAY_SECONDS = 12 * 3600;

export function retryDelays(): readonly number[] {
  const raw = process.env['DELIVERY_RETRY_DELAYS_SECONDS'];
  if (!raw) return DEFAULT_RETRY_DELAYS_SECONDS;
  const parsed = raw.split(',').map((s) => Number(s.trim()));
  const valid = parsed.length > 0 && parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= MAX_DELAY_SECONDS);
  if (!valid) throw new Error('DELIVERY_RETRY_DELAYS_SECONDS must be a comma-separated list of whole seconds (0 to 43200)');
  return parsed;
}

/** How many attempts an automatic delivery gets. */
export const scheduledAttempts = (): number => retryDelays().length;

/** Seconds to wait after `attemptsMade` failed attempts, or undefined when the schedule is spent. */
export function delayAfter(attemptsMade: number): number | undefined {
  return retryDelays()[attemptsMade];
}

/**
 * How long one delivery may take and how soon a message comes back after its worker died
 * (docs/events.md, "After a crash"). The function's timeout covers a batch: the 10 s endpoint
 * deadline of every message at once, plus the store calls around it. The queue's visibility
 * timeout is just longer, so a live worker's message does not come back while it runs, and a
 * message whose worker died is received again within 25 s and attempted. infra/stack.ts and the
 * local pipeline read these numbers.
 */
export const DELIVERY_FUNCTION_TIMEOUT_SECONDS = 20;
export const DELIVERY_VISIBILITY_TIMEOUT_SECONDS = 25;
