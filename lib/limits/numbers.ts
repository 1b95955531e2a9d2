/**
 * The service's abuse limits, in one place: the CDK usage plan, the local runtime's per-key
 * throttle, the handlers and the docs (README "Decisions", docs/webhooks.md, docs/events.md) all
 * use these numbers.
 */

/** Per API key, enforced by API Gateway's usage plan in AWS and by local/key-throttle.ts under `npm start`. */
export const API_KEY_LIMITS = {
  /** Steady requests per second (token refill rate). */
  ratePerSecond: 20,
  /** Requests that may arrive at once (bucket size). */
  burst: 40,
  /** Requests per UTC day. */
  dailyQuota: 100_000,
} as const;

/** Agents one account may own; POST /agents beyond it is 409 `limit_exceeded`. */
export const MAX_AGENTS_PER_ACCOUNT = 100;

/** Concurrent server-sent-event streams per agent; one more is 429 `rate_limited`. */
export const MAX_STREAMS_PER_AGENT = 5;

/**
 * The bound this service assumes on the difference between two function instances' clocks. Lambda
 * hosts keep time with the Amazon Time Sync Service (well under a second apart); every time-based
 * limit below is written so that a skew within this bound keeps it exact and a larger one can never
 * lock an agent out for longer than one lease or window plus this bound.
 */
export const MAX_CLOCK_SKEW_MS = 5_000;

/**
 * How far ahead of a reader's clock a stored time may be before it can only have come from a clock
 * beyond the bound: the skew itself, plus as much again for the time between an instance reading
 * its clock and its write landing (another instance may read its clock earlier and write later).
 */
export const FUTURE_TOLERANCE_MS = 2 * MAX_CLOCK_SKEW_MS;

/** The verify function's timeout (lib/routes.ts reads it): the 10 s handshake plus the calls around it. */
export const VERIFY_FUNCTION_TIMEOUT_SECONDS = 15;
const verifyTimeoutMs = VERIFY_FUNCTION_TIMEOUT_SECONDS * 1000;

/** POST …/webhook/verify per agent: one handshake in flight, at most `perWindow` started per window. */
export const VERIFY_LIMITS = {
  perWindow: 5,
  windowMs: 60_000,
  /**
   * How long an in-flight handshake holds the agent if its function dies without releasing: the
   * verify function's whole timeout (lib/routes.ts) plus the skew bound, so a live handshake never
   * loses the lease to an instance whose clock runs ahead.
   */
  leaseMs: verifyTimeoutMs + MAX_CLOCK_SKEW_MS,
} as const;

/**
 * Replays one agent may start per window (POST …/events/replay): each can send up to 30 days of the
 * agent's events again, so a loop of requests must not multiply that without bound.
 */
export const REPLAY_LIMITS = { perWindow: 5, windowMs: 3_600_000 } as const;

/** SSE stream leases: renewed every `renewMs` while the stream runs; a crashed stream's lease lapses after `leaseMs`. */
export const STREAM_LEASE = {
  leaseMs: 60_000,
  renewMs: 15_000,
} as const;
