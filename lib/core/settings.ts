/**
 * The service's fixed numbers, in one place: what every runtime shares (base paths, timeouts, the
 * delivery retry schedule, event-source batch sizes and retries), the local runtime's defaults and
 * the abuse limits; infra/, local/ and lib/ all read them from here. The environment, with its
 * readers and its check, is declared in environment.ts.
 */

// Separate constants rather than one object, so a function bundle keeps only the groups it reads.

/** Where each API lives on the one host (docs/api.md). */
export const BASE_PATHS = { marketplace: '/v1/marketplace', agents: '/api/v1' } as const;

export const ROUTE_TIMEOUTS = {
  /** A route's function timeout unless its row in lib/routes.ts says otherwise. */
  defaultTimeoutSeconds: 10,
  /** A streaming route (SSE) may run this long: Lambda's maximum. */
  streamingTimeoutSeconds: 15 * 60,
} as const;

/**
 * Webhook deliveries (docs/events.md, "After a crash"). The function's timeout covers a batch: the
 * 10 s endpoint deadline of every message at once, plus the store calls around it; the queue's
 * visibility timeout is just longer, so a live worker's message does not come back while it runs,
 * and a message whose worker died is received again within 25 s and attempted.
 */
export const DELIVERY = {
  functionTimeoutSeconds: 20,
  /** A webhook whose attempts have all failed this long is disabled (WEBHOOK_AUTO_DISABLE_AFTER_SECONDS overrides). */
  autoDisableAfterSeconds: 5 * 24 * 3600,
  visibilityTimeoutSeconds: 25,
  /** Receives before a message that keeps failing moves to the DLQ. */
  maxReceiveCount: 20,
  batchSize: 10,
  /**
   * Entry i is the wait before attempt i + 1, so entry 0 (always 0) is the first attempt:
   * Svix-like, 9 attempts over about 37.6 h, first retry after 30 s. Each wait is a delayed copy of
   * the message, hopping every 15 min past SQS's longest delay (lib/events/delivery/queue.ts).
   */
  retryDelaysSeconds: [0, 30, 300, 1800, 7200, 18000, 36000, 36000, 36000] as readonly number[],
  /** The longest wait between two attempts (a bound on DELIVERY_RETRY_DELAYS_SECONDS). */
  maxDelaySeconds: 12 * 3600,
  /**
   * The per-endpoint circuit (lib/events/delivery/circuit.ts): this many failed attempts in a row,
   * across every worker, open it; it stays open `circuitCooldownSeconds` times 2^(openings − 1), at
   * most `circuitMaxCooldownSeconds`, then lets one probe attempt through.
   */
  circuitFailuresToOpen: 5,
  circuitCooldownSeconds: 30,
  circuitMaxCooldownSeconds: 3600,
  /**
   * POSTs in flight to one webhook in doubt, across every worker (lib/events/delivery/endpoint-slots.ts):
   * a slow or dead endpoint holds at most this many workers. Each slot is a lease that lapses after
   * functionTimeoutSeconds, so a crashed worker cannot keep it. An endpoint is proven (uncapped, no
   * lease written) for `provenSeconds` after a batch whose attempts all answered 2xx within
   * `slowPostMs`; a failure, or a POST still unanswered after `slowPostMs`, puts it in doubt at once,
   * so the proof may last long: a week, one write per endpoint every 3.5 days while it answers in time.
   */
  endpointInFlight: 2,
  slowPostMs: 5000,
  provenSeconds: 7 * 24 * 3600,
  /**
   * A message held without an attempt (its circuit open, or no POST slot free: lib/events/delivery/hold.ts)
   * waits `holdBaseSeconds` (a slot is free again within one 10 s POST deadline) × 2^(times held
   * before), at most `holdMaxSeconds` (one SQS delay, so the backlog of an endpoint that recovers
   * arrives within it), spread by up to half again; a wait for a POST slot ends when the slots lapse.
   */
  holdBaseSeconds: 10,
  holdMaxSeconds: 900,
  /**
   * Re-verification (lib/events/delivery/reverify.ts): an ENABLED webhook is challenged again once
   * its last handshake is this old; a failed challenge is tried again after `reverifyRetrySeconds`,
   * and after `reverifyFailuresToDemote` failures in a row it goes back to PENDING_VERIFICATION.
   */
  reverifyAfterSeconds: 72 * 3600,
  reverifyRetrySeconds: 3600,
  reverifyFailuresToDemote: 3,
} as const;

/**
 * The table's stream: two readers, the relay and the search indexer (DynamoDB advises at most two
 * per shard). The push worker is no third: the relay hands it the new feed slots of each batch
 * (lib/events/push-hand-off.ts; docs/events.md, "Push"). Every mapping keeps what still fails after
 * `retryAttempts` in a failure queue, with an alarm (infra/streams.test.ts holds both).
 */
export const STREAM = {
  batchSize: 100,
  /** A batch that keeps failing is skipped (and logged) after this many attempts. */
  retryAttempts: 10,
  workerTimeoutSeconds: 60,
} as const;

/**
 * Search follows the catalog through the table's stream. The contract (docs/marketplace.md): a
 * template is found by search within `publishToSearchableSeconds` of its publish's answer. The
 * marketplace bench measures the p99 (1.2 s on a quiet machine); up to about 9 s was seen at load
 * 13–18 on 2 cores (five sessions sharing them), so the bound leaves room for a busy machine. `npm start` waits up to
 * `firstStartWaitSeconds` for the demo templates before its banner.
 */
export const SEARCH_DELAY = { publishToSearchableSeconds: 15, firstStartWaitSeconds: 300 } as const;

export const TREND_ROLLOVER = { timeoutSeconds: 15 * 60 } as const;

/** The local runtime's defaults. */
export const LOCAL_DEFAULTS = {
  port: 3000,
  host: '127.0.0.1',
  dynamoPort: 8000,
  dataDir: '.data',
  tableName: 'marketplace',
  region: 'us-east-1',
  /**
   * The local SQS emulator's in-flight limit per queue: AWS's 120,000 for a standard queue, scaled
   * down 100× so a local backlog reaches it (local/emulators/sqs-fair-queue.ts; SQS_IN_FLIGHT_LIMIT).
   */
  sqsInFlightLimit: 1200,
} as const;

// ---- Abuse limits (docs/limits.md): the CDK usage plan, the local per-key throttle, the handlers and
// the docs all use these numbers.

/** Per API key, enforced by API Gateway's usage plan in AWS and by local/gateway/key-throttle.ts under `npm start`. */
export const API_KEY_LIMITS = {
  /** Steady requests per second (token refill rate). */
  ratePerSecond: 20,
  /** Requests that may arrive at once (bucket size). */
  burst: 40,
  /** Requests per UTC day. */
  dailyQuota: 100_000,
} as const;

/**
 * Each route that answers without a key (`auth: false` in lib/routes.ts: /health, /openapi.json,
 * the event catalog, an agent's JWKS) has one throttle for all its callers together, since no usage
 * plan counts anonymous calls: in AWS a method throttle of the stage (infra/keyless-throttles.ts),
 * under `npm start` a token bucket per route in local/gateway/api-gateway.ts. What one API key may
 * do, shared by everyone without one; their answers are cacheable, so a well-behaved client rarely
 * asks twice.
 */
export const KEYLESS_ROUTE_LIMITS = { ratePerSecond: 20, burst: 40 } as const;

/**
 * How long a receiver (and any cache between) may keep an agent's JWKS (GET …/webhook-keys/{id})
 * before asking again, with its ETag (a 304 when unchanged). A rotation with a shorter overlap than
 * this can leave a cache holding only the replaced key for up to this long (docs/webhooks.md).
 */
export const JWKS_MAX_AGE_SECONDS = 300;

/** Agents one account may own; POST /agents beyond it is 409 `limit_exceeded`. */
export const MAX_AGENTS_PER_ACCOUNT = 100;

/** AWS destinations of an agent (lib/destinations, docs/webhooks.md "AWS destinations"). */
export const DESTINATIONS = {
  maxPerAgent: 5,
  /** How long a verification code may be posted back. */
  codeTtlSeconds: 24 * 3600,
  /** Wrong codes one verification message allows; the next try sends a new code. */
  maxWrongCodes: 5,
  /**
   * One verification message per destination per this interval, whatever became of the last one
   * (each is a send into an ARN the caller chose): a conditional write on the destination item
   * takes the interval, so concurrent calls on any number of instances ask for one message. A
   * caller's clock must see the last ask this far back plus the skew bound (MAX_CLOCK_SKEW_MS), so
   * no two in-bound clocks make it shorter in real time.
   */
  verificationIntervalMs: 60_000,
  /** The session tag that names the account a delivery is made for; the customer's policy conditions on it. */
  tenantTagKey: 'marketplace-account',
  /** Sessions of the sender role are kept this long per account (STS gives an hour). */
  sessionSeconds: 3600,
} as const;

/** Concurrent server-sent-event streams per agent; one more is 429 `rate_limited`. */
export const MAX_STREAMS_PER_AGENT = 5;

/**
 * The WebSocket push channel (docs/events.md, "Push"). An agent has `connectionsPerAgent` slot items
 * (one per open connection: one event fans out to at most that many, and one more connect is 429).
 * A slot is held while its connection may be open: API Gateway closes every WebSocket connection
 * after `maxConnectionMs` (its own limit, 2 h), so a slot whose $disconnect never came frees itself
 * then, plus the skew bound. Clients send a sync every `keepAliveSeconds`: API Gateway closes a
 * connection idle for 10 minutes, and the sync also catches up whatever a failed push left behind.
 */
export const PUSH = {
  connectionsPerAgent: 10,
  maxConnectionMs: 2 * 3600_000,
  keepAliveSeconds: 300,
  /** Events one read of the feed takes before they are sent (as the SSE loop's page). */
  pageSize: 100,
  /** Agents one push worker batch serves at once: up to 10 connections each, so about 100 posts in flight. */
  agentsAtOnce: 10,
  /**
   * The relay's hand-off to the push worker (lib/events/push-hand-off.ts): an asynchronous invoke
   * whose payload stays under `handOffMaxBytes` (Lambda's limit for an asynchronous invoke was
   * 256 KB, 1 MB since 2025: under both). Past it the slots' images are left out and the worker
   * reads the feed for them. A failed invocation is tried `handOffRetryAttempts` more times by Lambda,
   * then kept in the push failure queue (infra/push-stack.ts).
   */
  handOffMaxBytes: 256 * 1024,
  handOffRetryAttempts: 2,
  /** The subprotocol the channel speaks; a client offers it (and its key as `key.<API key>`). */
  protocol: 'events.v1',
  /** Where the local runtime serves the channel (a deployed stage has its own WebSocket API URL). */
  localPath: '/push',
  functionTimeoutSeconds: 30,
  /**
   * What clients may send (docs/events.md, "Push"; docs/limits.md). Deployed, every message is a
   * pushSync invocation under the WebSocket stage's throttle, which all clients share: a connection
   * may send `perConnection` messages per window, an API key `perKey` over all its connections (the
   * REST API's 20 per second for a key); one more is a `rate_limited` error frame, and the
   * `closeAfterRefused`-th refused message of a window closes the connection. A client needs one
   * sync at connect and one per keepAliveSeconds: 10 a minute is 50 times what it needs.
   */
  messageLimits: { windowMs: 60_000, perConnection: 10, perKey: 1_200, closeAfterRefused: 10 },
} as const;

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
 * Webhook handshakes one account may start per window, over all its agents (POST …/webhook/verify):
 * each is a POST to a URL the caller chose, and the per-agent window alone (VERIFY_LIMITS) let an
 * account multiply it by making agents. As many as the agents an account may own, once each an hour.
 */
export const ACCOUNT_HANDSHAKE_LIMITS = { perWindow: 100, windowMs: 3_600_000 } as const;

/**
 * Replays one agent may start per window (POST …/events/replay): each can send up to 30 days of the
 * agent's events again, so a loop of requests must not multiply that without bound.
 */
export const REPLAY_LIMITS = { perWindow: 5, windowMs: 3_600_000 } as const;

/** Reports of templates and reviews one user may file per window (docs/marketplace.md, "Reports and moderation"). */
export const REPORT_LIMITS = { perWindow: 10, windowMs: 3_600_000 } as const;

/**
 * AWS destinations one account may register per window (POST …/destinations): each sends a
 * verification message into an ARN the caller chose, and deleting one frees its place under the
 * per-agent cap at once, so without this a create-and-delete loop would be a send per two requests.
 */
export const DESTINATION_REGISTRATION_LIMITS = { perWindow: 20, windowMs: 3_600_000 } as const;

/**
 * Version changes (PATCH …/versions/:version) one template may take per window, across every
 * instance: each may tell every installer's chosen agents (docs/limits.md, "Version notices").
 */
export const VERSION_CHANGE_LIMITS = { perWindow: 10, windowMs: 3_600_000 } as const;

/** Visibility changes (PATCH /templates/:id) per template per window: each one moves the template's whole search index. */
export const VISIBILITY_CHANGE_LIMITS = { perWindow: 10, windowMs: 3_600_000 } as const;

/**
 * Version notices told to a template's installers: at most `perWindow` per template per window
 * start at once; later ones wait for the window's end, one per (kind, version), the latest state
 * winning. The wait is an SQS message's delay (at most 900 s), so the window plus the skew
 * tolerance stays below it. NOTICE_WINDOW_SECONDS shortens the window in tests.
 */
export const VERSION_NOTICES = { perWindow: 2, windowSeconds: 600 } as const;

/**
 * SSE stream leases: renewed every `renewMs` while the stream runs; a crashed stream's lease lapses
 * after `leaseMs`. No lease is renewed past `lifetimeMs` from its start: in AWS a streaming function
 * may run on after its client left without being told, and would otherwise hold one of the agent's
 * slots until its 15-minute timeout. The stream ends then and the client reconnects with
 * `Last-Event-ID` (EventSource does so by itself), so a departed client holds a slot at most
 * `lifetimeMs` + `leaseMs`.
 */
export const STREAM_LEASE = {
  leaseMs: 60_000,
  renewMs: 15_000,
  lifetimeMs: 300_000,
} as const;
