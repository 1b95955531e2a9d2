/**
 * The environment, declared once: every variable the service reads, its kind, its default and its
 * words (see lib/core/environment.ts for how each kind is read). From this list come the readers'
 * kinds (lib/core/environment-kinds.ts, generated), the strict check `npm start` runs first
 * (`assertSettings()`, local/settings-check.ts) and the variable tables of CONTRIBUTING.md and
 * README.md: `npm run settings-doc` writes all three, and a test fails when one drifts. A new
 * variable is one entry here.
 *
 * Kept apart from the readers so no function bundle carries the words: measured, they took 3.6 KB
 * minified of the largest bundle's headroom over its floor (4.4 KB left with them, 8.0 KB without).
 */

export type Kind =
  | 'text'
  | 'url'
  | 'flag'
  | 'logLevel'
  | 'apiPort'
  | 'dynamoPort'
  | 'host'
  | 'dataDir'
  | 'origins'
  | 'retryDelays'
  | 'autoDisableSeconds'
  | 'replayPageItems'
  | 'inFlightLimit'
  | 'noticeWindowSeconds';

/** Where a variable is read: everywhere, only by the local runtime and commands, or set by Lambda or infra. */
type Scope = 'service' | 'local' | 'lambda' | 'admin';

export interface Declared {
  kind: Kind;
  /** The default's words for the tables, when the reader falls back to one. */
  default?: string;
  /** CONTRIBUTING.md's row. */
  doc: string;
  scope: Scope;
  /** README.md's row (the variables a reader of `npm start` sets), when it has one. */
  readme?: string;
}

export const ENVIRONMENT = {
  TABLE_NAME: { kind: 'text', scope: 'service', doc: 'The DynamoDB table.' },
  DYNAMODB_ENDPOINT: {
    kind: 'url',
    scope: 'service',
    doc: 'Set locally (DynamoDB Local); unset in AWS.',
    readme: 'With `TABLE_NAME`: use an existing DynamoDB instead of starting one.',
  },
  LOCAL_DYNAMODB_PORT: {
    kind: 'dynamoPort',
    scope: 'local',
    default: '8000',
    doc: "DynamoDB Local's port for `npm start`; the admin and invoke commands find a running one's from its `DATA_DIR` lock.",
    readme:
      "DynamoDB Local's port. The admin and invoke commands find a running `npm start`'s ports from its `DATA_DIR`.",
  },
  PORT: {
    kind: 'apiPort',
    scope: 'local',
    default: '3000',
    doc: 'Local runtime: the API port.',
    readme: "The API's port.",
  },
  HOST: {
    kind: 'host',
    scope: 'local',
    default: '127.0.0.1',
    doc: 'Local runtime: the listen address of the API, DynamoDB Local and the SQS emulator.',
    readme:
      'Where the API, DynamoDB Local and the SQS emulator listen. Loopback by default: the demo keys are public and the table holds webhook secrets, so `HOST=0.0.0.0` exposes them.',
  },
  DATA_DIR: {
    kind: 'dataDir',
    scope: 'local',
    default: '.data',
    doc: 'Local runtime: the data folder (`:memory:` keeps nothing).',
    readme:
      "DynamoDB Local's data, the SQS emulator's queues, the stream checkpoint and the runtime's lock; `:memory:` keeps nothing.",
  },
  DELIVERY_QUEUE_URL: { kind: 'text', scope: 'service', doc: 'The SQS delivery queue.' },
  SQS_ENDPOINT: { kind: 'url', scope: 'service', doc: 'Set locally (fauxqs); unset in AWS.' },
  WEBHOOK_SIGNING_KMS_KEY_ID: {
    kind: 'text',
    scope: 'service',
    default: 'a key file under `DATA_DIR` (local only)',
    doc: "Set by infra: the KMS key whose data keys seal the agents' ed25519 (`v1a`) private keys (`lib/webhooks/data-key.ts`). Unset locally: `DATA_DIR/webhook-signing.key` (made on first use) wraps them instead.",
  },
  PUSH_CONNECTIONS_ENDPOINT: {
    kind: 'url',
    scope: 'service',
    doc: "The push channel's @connections endpoint (`https://<api id>.execute-api.<region>.amazonaws.com/<stage>`; locally the runtime's own URL). Set by infra on the functions that push; `admin revoke-key` against a deployed stage needs it (stack output `PushConnectionsEndpoint`) to close the key's connections.",
  },
  PUSH_FUNCTION_NAME: {
    kind: 'text',
    scope: 'service',
    doc: "The push worker's function name. Set by infra on the relay, which hands it each batch's new feed slots by an asynchronous invoke (`lib/events/push-hand-off.ts`); the local runtime sets it when its push worker starts. Unset: the relay hands nothing over (a runtime without the push channel).",
  },
  LAMBDA_ENDPOINT: {
    kind: 'url',
    scope: 'service',
    doc: "Where the relay's invoke of the push worker goes instead of `https://lambda.<region>.amazonaws.com` (the local runtime's Invoke stand-in, `local/emulators/async-invoke.ts`); unset in AWS.",
  },
  DESTINATION_QUEUE_URL: {
    kind: 'text',
    scope: 'service',
    doc: "The SQS queue of deliveries to customers' AWS destinations (lib/destinations; its own worker).",
  },
  DESTINATION_SENDER_ROLE_ARN: {
    kind: 'text',
    scope: 'service',
    doc: 'The role deliveries to customers\' queues and buses are made with, assumed per account with a session tag (docs/webhooks.md, "AWS destinations"); unset locally.',
  },
  STS_ENDPOINT: {
    kind: 'url',
    scope: 'service',
    doc: "An STS stand-in for the sender role's AssumeRole (the tests' STS endpoint on 127.0.0.1); unset in AWS.",
  },
  SERVICE_ACCOUNT_ID: {
    kind: 'text',
    scope: 'service',
    doc: "The service's own AWS account: a destination there is refused. Infra sets it; unset locally.",
  },
  EVENTBRIDGE_ENDPOINT: {
    kind: 'url',
    scope: 'service',
    doc: "Set locally: where EventBridge destinations' PutEvents go (a test's endpoint on 127.0.0.1); unset in AWS.",
  },
  DELIVERY_RETRY_DELAYS_SECONDS: {
    kind: 'retryDelays',
    scope: 'service',
    default: '`DELIVERY.retryDelaysSeconds`',
    doc: 'Optional: comma-separated waits before each delivery attempt (`0,1,1` in tests).',
  },
  WEBHOOK_AUTO_DISABLE_AFTER_SECONDS: {
    kind: 'autoDisableSeconds',
    scope: 'service',
    default: '`432000` (5 days)',
    doc: "Optional: how long a webhook's attempts must all have failed before it is disabled (`lib/events/delivery/webhook-health.ts`).",
  },
  SQS_IN_FLIGHT_LIMIT: {
    kind: 'inFlightLimit',
    scope: 'local',
    default: '`1200` (AWS: 120,000 a standard queue)',
    doc: "Local runtime: the SQS emulator's in-flight messages per queue; a receive past it fails with `OverLimit`, as in AWS (local/emulators/sqs-fair-queue.ts).",
  },
  REPLAY_PAGE_ITEMS: {
    kind: 'replayPageItems',
    scope: 'service',
    default: '100',
    doc: 'Optional: feed slots one replay page reads (tests set it small to cross pages).',
  },
  NOTICE_WINDOW_SECONDS: {
    kind: 'noticeWindowSeconds',
    scope: 'service',
    default: '`600` (`VERSION_NOTICES.windowSeconds`)',
    doc: "Optional: the window of a template's version notices, 1 to 880 s (tests shorten it to see a waiting notice told at the window's end).",
  },
  DEVELOPMENT_MODE: {
    kind: 'flag',
    scope: 'service',
    default: '`false`; `true` under `npm start`',
    doc: '`true` allows `http://localhost`, `127.0.0.1`, `[::1]` webhooks. The local runtime sets it unless it is given (`false`: deployed rules, and no demo webhooks); a deployed stage does not unless configured.',
    readme:
      "Allows `http://localhost`, `127.0.0.1` and `[::1]` webhooks. `false` applies a deployed stage's rules (the banner says so), and the demo agents get no webhook.",
  },
  LOG_LEVEL: {
    kind: 'logLevel',
    scope: 'service',
    default: 'info',
    doc: '`debug`, `info`, `warn` (warnings and errors only), `silent`. Under `npm start` the lines go to `runtime.log` in `DATA_DIR` unless `LOG_LEVEL` is given, which prints them on the console.',
    readme:
      '`debug`, `info`, `warn`, `silent`. Unset, `npm start` writes its log lines to `runtime.log` in `DATA_DIR` (its console stays quiet); set, it prints them.',
  },
  AWS_REGION: {
    kind: 'text',
    scope: 'service',
    default: '`us-east-1` locally',
    doc: 'The region of the SDK clients pointed at the local emulators; in AWS, Lambda sets it.',
  },
  EMULATOR_ACCESS_KEY_ID: {
    kind: 'text',
    scope: 'local',
    default: '`local`',
    doc: 'The access key id the SDK shows the local emulators (they check none). DynamoDB Local without `-sharedDb` keeps a database per key id: the integration tier gives each test file its own (`test/support/per-file-table.ts`).',
  },
  AWS_LAMBDA_FUNCTION_NAME: { kind: 'text', scope: 'lambda', doc: 'Set by Lambda; read for metrics.' },
  AWS_LAMBDA_INITIALIZATION_TYPE: {
    kind: 'text',
    scope: 'lambda',
    doc: 'Set by Lambda; read for the `cold_start` log field.',
  },
  _X_AMZN_TRACE_ID: { kind: 'text', scope: 'lambda', doc: 'Set by Lambda; the trace id on every log line.' },
  USAGE_PLAN_ID: {
    kind: 'text',
    scope: 'admin',
    doc: 'Admin command against a deployed stage: the usage plan `create-key` attaches a key to and `revoke-key` takes it out of (stack output `UsagePlanId`).',
  },
  CORS_ALLOWED_ORIGINS: {
    kind: 'origins',
    scope: 'service',
    default: '`*`',
    doc: 'Comma-separated origins for CORS; unset or `*` = any (infra sets it from `-c corsOrigins`).',
    readme: 'Origins a browser page may call from, comma-separated.',
  },
  PORTAL_URL: {
    kind: 'url',
    scope: 'service',
    default: '`http://localhost:<PORT>/portal/`',
    doc: "The portal page's address, which portal links point to: configuration only, never the request's `Host` (infra sets it to the web stack's CloudFront URL; `npm start` to its own `/portal/`, where the API serves the page).",
  },
  METRICS_TO_STDOUT: {
    kind: 'flag',
    scope: 'service',
    default: '`false`',
    doc: '`true` writes EMF metric lines outside Lambda too (they are always written inside Lambda).',
  },
  DELIVERY_DLQ_URL: { kind: 'text', scope: 'admin', doc: 'The delivery DLQ, for `npm run admin -- redrive delivery`.' },
  POWERTOOLS_SERVICE_NAME: {
    kind: 'text',
    scope: 'lambda',
    doc: 'Set by infra on every function (`lib/observability/names.ts`).',
  },
  POWERTOOLS_METRICS_NAMESPACE: {
    kind: 'text',
    scope: 'lambda',
    doc: 'Set by infra on every function (`lib/observability/names.ts`).',
  },
} as const satisfies Record<string, Declared>;

export type SettingName = keyof typeof ENVIRONMENT;
