/**
 * How the environment is read: each kind's reader, and `setting('NAME')`. The variables themselves
 * are declared once, with their words, in lib/core/environment-declaration.ts; this module reads
 * their kinds from the generated lib/core/environment-kinds.ts, so a function bundle carries no
 * words.
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
import type { ENVIRONMENT, Kind, SettingName } from './environment-declaration.ts';
import { ENVIRONMENT_KINDS } from './environment-kinds.ts';
import { DELIVERY, LOCAL_DEFAULTS, VERSION_NOTICES } from './settings.ts';

export type { Kind } from './environment-declaration.ts';

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
  noticeWindowSeconds: { read: (raw: string | undefined) => noticeWindowSeconds(raw) },
  replayPageItems: { read: (raw: string | undefined) => positiveInteger(raw, 100) },
  inFlightLimit: { read: (raw: string | undefined) => positiveInteger(raw, LOCAL_DEFAULTS.sqsInFlightLimit) },
} as const satisfies Record<Kind, { read: (raw: string | undefined) => unknown }>;

export type { SettingName } from './environment-declaration.ts';
export type Env = Readonly<Record<string, string | undefined>>;
type ValueOf<N extends SettingName> = ReturnType<(typeof KINDS)[(typeof ENVIRONMENT)[N]['kind']]['read']>;

/** The variable's value as its kind reads it (its default when unset or empty). */
export function setting<N extends SettingName>(name: N, env: Env = process.env): ValueOf<N> {
  const kind: Kind = ENVIRONMENT_KINDS[name];
  return KINDS[kind].read(env[name] || undefined) as ValueOf<N>;
}

function positiveInteger(raw: string | undefined, fallback: number): number {
  const n = Number(raw ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
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

/** At most 880 s: the flush waits the window plus the skew tolerance in one SQS delay (900 s at most). */
export const MAX_NOTICE_WINDOW_SECONDS = 880;

function noticeWindowSeconds(raw: string | undefined): number {
  if (raw === undefined) return VERSION_NOTICES.windowSeconds;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_NOTICE_WINDOW_SECONDS)
    throw new Error(`NOTICE_WINDOW_SECONDS must be a whole number of seconds, 1 to ${MAX_NOTICE_WINDOW_SECONDS}`);
  return seconds;
}

function wholeSecondsAtLeastOne(raw: string | undefined): number {
  if (raw === undefined) return DELIVERY.autoDisableAfterSeconds;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new Error('WEBHOOK_AUTO_DISABLE_AFTER_SECONDS must be a whole number of seconds, at least 1');
  return seconds;
}
