import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './observability/names.ts';

/**
 * One-line JSON logs through Powertools Logger: inside a handler (lib/observability/lambda.ts)
 * every line carries the Lambda request id, the API request id as `correlation_id`, the function
 * name and `cold_start`. Field names that can carry credentials are redacted here, in one place,
 * so a careless call cannot leak an API key or a webhook secret.
 */
const SECRET_FIELD = /secret|api_?key|authorization|signature|password|token|challenge/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

/** The logger itself lets everything through; LOG_LEVEL is read per call so tests and tools can change it. */
export const logger = new Logger({ serviceName: SERVICE_NAME, logLevel: 'DEBUG' });

type Level = 'debug' | 'info' | 'warn' | 'error';

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (process.env['LOG_LEVEL'] === 'silent') return;
  if (level === 'debug' && process.env['LOG_LEVEL'] !== 'debug') return;
  if (fields === undefined) logger[level](msg);
  else logger[level](msg, redact(fields) as Record<string, unknown>);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
