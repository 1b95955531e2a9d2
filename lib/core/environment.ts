/**
 * The environment, declared once: every variable the service reads, its kind, its default and
 * its words. From this one list come the readers (`setting('NAME')`, below), the strict check
 * `npm start` runs first (`assertSettings()`, local/settings-check.ts, a zod schema made from it) and
 * the variable tables of CONTRIBUTING.md and README.md (`npm run settings-doc`; a test fails when
 * they drift). A new variable is one entry here.
 *
 * Plain data rather than zod schemas: every function reads some variable, and the keyless routes
 * (health, openapi.json) bundle no zod at all. Readers are lenient, because they run during
 * requests: a flag is on only for the exact value "true", an unknown log level is `info`, a port
 * that is not one is the default; the two kinds that must never run on a value nobody meant (the
 * retry schedule, the auto-disable wait) throw on every read.
 *
 * Read on every call, not once: the local runtime and the tests set variables at run time (the
 * queue URL once the emulator is up, a table per test file, a fast retry schedule).
 */
import { DELIVERY, LOCAL_DEFAULTS } from './settings.ts';

/** Where a variable is read: everywhere, only by the local runtime and commands, or set by Lambda or infra. */
type Scope = 'service' | 'local' | 'lambda' | 'admin';

interface Declared {
  kind: Kind;
  /** The default's words for the tables, when the reader falls back to one. */
  default?: string;
  /** CONTRIBUTING.md's row. */
  doc: string;
  scope: Scope;
  /** README.md's row (the variables a reader of `npm start` sets), when it has one. */
  readme?: string;
}

export type Kind = keyof typeof KINDS;

/** A variable's value from its raw text (undefined when unset or empty), leniently; `strict` is the start-up check's rule. */
const KINDS = {
  text: { read: (raw: string | undefined) => raw },
  url: { read: (raw: string | undefined) => raw },
  flag: { read: (raw: string | undefined) => raw === 'true' },
  logLevel: {
    read: (raw: string | undefined): 'debug' | 'info' | 'warn' | 'silent' =>
      raw === 'debug' || raw === 'warn' || raw === 'silent' ? raw : 'info',
  },
  apiPort: { read: (raw: string | undefined) => port(raw, LOCAL_DEFAULTS.port) },
  dynamoPort: { read: (raw: string | undefined) => port(raw, LOCAL_DEFAULTS.dynamoPort) },
  host: { read: (raw: string | undefined) => raw ?? LOCAL_DEFAULTS.host },
  dataDir: { read: (raw: string | undefined) => raw ?? LOCAL_DEFAULTS.dataDir },
  origins: { read: (raw: string | undefined) => corsOrigins(raw) },
  retryDelays: { read: (raw: string | undefined) => retryDelays(raw) },
  autoDisableSeconds: { read: (raw: string | undefined) => wholeSecondsAtLeastOne(raw) },
  replayPageItems: {
    read: (raw: string | undefined) => {
      const n = Number(raw ?? 100);
      return Number.isInteger(n) && n > 0 ? n : 100;
    },
  },
} as const;

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
    doc: "DynamoDB Local's port for `npm start` and the admin command.",
    readme: "DynamoDB Local's port (the admin and invoke commands use it too).",
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
    doc: 'Local runtime: the listen address.',
    readme:
      'Where the API listens. Loopback by default: the demo keys are public, so `HOST=0.0.0.0` exposes the demo accounts.',
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
  REPLAY_PAGE_ITEMS: {
    kind: 'replayPageItems',
    scope: 'service',
    default: '100',
    doc: 'Optional: feed slots one replay page reads (tests set it small to cross pages).',
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
    doc: '`debug`, `info`, `warn` (warnings and errors only), `silent`.',
    readme: '`debug`, `info`, `warn`, `silent`.',
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
    doc: 'Admin command against a deployed stage: the usage plan new keys are attached to (stack output `UsagePlanId`).',
  },
  CORS_ALLOWED_ORIGINS: {
    kind: 'origins',
    scope: 'service',
    default: '`*`',
    doc: 'Comma-separated origins for CORS; unset or `*` = any (infra sets it from `-c corsOrigins`).',
    readme: 'Origins a browser page may call from, comma-separated.',
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
export type Env = Readonly<Record<string, string | undefined>>;
type ValueOf<N extends SettingName> = ReturnType<(typeof KINDS)[(typeof ENVIRONMENT)[N]['kind']]['read']>;

/** The variable's value as its kind reads it (its default when unset or empty). */
export function setting<N extends SettingName>(name: N, env: Env = process.env): ValueOf<N> {
  const kind = ENVIRONMENT[name].kind as Kind;
  return KINDS[kind].read(env[name] || undefined) as ValueOf<N>;
}

function port(raw: string | undefined, fallback: number): number {
  const value = Number(raw || fallback);
  return Number.isInteger(value) && value >= 0 && value <= 65535 ? value : fallback;
}

export function corsOrigins(raw: string | undefined): string[] {
  const list = (raw ?? '*')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return list.length === 0 || list.includes('*') ? ['*'] : list;
}

function retryDelays(raw: string | undefined): readonly number[] {
  if (!raw) return DELIVERY.retryDelaysSeconds;
  const parsed = raw.split(',').map((s) => Number(s.trim()));
  if (!parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= DELIVERY.maxDelaySeconds)) {
    // Thrown on every read, not only at start: a delivery must not run on a schedule nobody meant.
    throw new Error(
      `DELIVERY_RETRY_DELAYS_SECONDS must be a comma-separated list of whole seconds (0 to ${DELIVERY.maxDelaySeconds}), not "${raw}".`,
    );
  }
  return parsed;
}

function wholeSecondsAtLeastOne(raw: string | undefined): number {
  if (raw === undefined) return DELIVERY.autoDisableAfterSeconds;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new Error('WEBHOOK_AUTO_DISABLE_AFTER_SECONDS must be a whole number of seconds, at least 1');
  return seconds;
}
