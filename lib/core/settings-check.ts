/**
 * The strict check of the environment (lib/core/settings.ts), for a process about to start: every
 * variable a value it can take, or a SettingsError with one sentence naming it. Local commands call
 * it; function bundles do not carry it (their environment is written by infra from typed settings).
 */

import type { Env } from './settings.ts';
import * as settings from './settings.ts';

export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

const present = (env: Env, name: string): string | undefined =>
  env[name] === undefined || env[name] === '' ? undefined : env[name];

function flag(env: Env, name: string): void {
  const raw = present(env, name);
  if (raw !== undefined && raw !== 'true' && raw !== 'false')
    throw new SettingsError(`${name} must be "true" or "false", not "${raw}".`);
}

function port(env: Env, name: string): void {
  const raw = present(env, name);
  if (raw === undefined) return;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new SettingsError(`${name} must be a port number (0–65535), not "${raw}".`);
}

function url(env: Env, name: string): void {
  const raw = present(env, name);
  if (raw !== undefined && !URL.canParse(raw))
    throw new SettingsError(`${name} must be a URL such as http://127.0.0.1:8000, not "${raw}".`);
}

/** Every variable of settings.ts, read after the check. */
function snapshot(env: Env) {
  return {
    tableName: settings.tableName(env),
    dynamoEndpoint: settings.dynamoEndpoint(env),
    sqsEndpoint: settings.sqsEndpoint(env),
    deliveryQueueUrl: settings.deliveryQueueUrl(env),
    deliveryDlqUrl: settings.deliveryDlqUrl(env),
    retryDelaysSeconds: settings.retryDelaysSeconds(env),
    replayPageItems: settings.replayPageItems(env),
    webhookAutoDisableAfterSeconds: settings.webhookAutoDisableAfterSeconds(env),
    developmentMode: settings.developmentMode(env),
    metricsToStdout: settings.metricsToStdout(env),
    logLevel: settings.logLevel(env),
    corsAllowedOrigins: settings.corsAllowedOrigins(env),
    region: settings.region(env),
    port: settings.localPort(env),
    host: settings.localHost(env),
    dataDir: settings.dataDir(env),
    dynamoPort: settings.dynamoPort(env),
  };
}

export type CheckedSettings = ReturnType<typeof snapshot>;

/** The settings, after checking every variable; the first wrong one is a SettingsError. */
export function assertSettings(env: Env = process.env): CheckedSettings {
  flag(env, 'DEVELOPMENT_MODE');
  flag(env, 'METRICS_TO_STDOUT');
  const level = present(env, 'LOG_LEVEL');
  if (level !== undefined && !['debug', 'info', 'warn', 'silent'].includes(level))
    throw new SettingsError(`LOG_LEVEL must be debug, info, warn or silent, not "${level}".`);
  port(env, 'PORT');
  port(env, 'LOCAL_DYNAMODB_PORT');
  url(env, 'DYNAMODB_ENDPOINT');
  url(env, 'SQS_ENDPOINT');
  // The readers that refuse a bad value on every read: at start, their refusal is a SettingsError.
  for (const read of [settings.retryDelaysSeconds, settings.webhookAutoDisableAfterSeconds]) {
    try {
      read(env);
    } catch (err) {
      throw new SettingsError((err as Error).message);
    }
  }
  return snapshot(env);
}
