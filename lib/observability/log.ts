/**
 * One-line JSON logs. Inside a handler (lib/observability/lambda.ts) every line carries the Lambda
 * request id, the API request id as `correlation_id`, the function name and `cold_start`, with the
 * field names Powertools Logger uses (its package would add about 20 KB to every bundle: docs/decisions.md,
 * "Operations"). Field names that can carry credentials are redacted here, in one
 * place, so a careless call cannot leak an API key or a webhook secret.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { setting } from '../core/environment.ts';
import { SERVICE_NAME } from './names.ts';

const SECRET_FIELD = /secret|api_?key|authorization|signature|password|token|challenge/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

/**
 * What the current invocation adds to every line, held per invocation rather than in a module
 * variable: the local runtime (and Lambda's response streaming) runs several invocations in one
 * process at once, and a global let one handler's lines carry another's function name and request id.
 */
const invocations = new AsyncLocalStorage<Record<string, unknown>>();
/** Provisioned concurrency initialises ahead of any request: no invocation of it is a cold start. */
let coldStart = !(setting('AWS_LAMBDA_INITIALIZATION_TYPE') === 'provisioned-concurrency');

/** What a log line needs of the runtime's invocation context (Lambda's `Context` has these fields). */
export interface InvocationContext {
  awsRequestId: string;
  functionName: string;
  memoryLimitInMB: string;
  /** Lambda's: the function's time left (lib/store/call-deadline.ts bounds store calls by it). */
  getRemainingTimeInMillis?: () => number;
}

/** Runs `fn` with the invocation's fields on every line it (and what it awaits) writes. */
export function withLogContext<T>(
  context: InvocationContext | undefined,
  correlationId: string | undefined,
  fn: () => T,
): T {
  const fields = {
    ...(context?.awsRequestId
      ? {
          cold_start: coldStart,
          function_name: context.functionName,
          function_memory_size: context.memoryLimitInMB,
          function_request_id: context.awsRequestId,
        }
      : {}),
    ...(correlationId ? { correlation_id: correlationId } : {}),
  };
  if (context?.awsRequestId) coldStart = false;
  return invocations.run(fields, fn);
}

export type Level = 'debug' | 'info' | 'warn' | 'error';

/** Where a finished line goes. */
export type LogWriter = (level: Level, line: string) => void;

const toConsole: LogWriter = (level, line) =>
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(`${line}\n`);
let writer: LogWriter = toConsole;

/**
 * Sends every later line to `next` instead of stdout/stderr (undefined: back to them). Lambda never
 * calls it (CloudWatch reads stdout); `npm start` does, to keep its console for what needs the
 * user (local/log-file.ts).
 */
export function sendLogsTo(next: LogWriter | undefined): void {
  writer = next ?? toConsole;
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  const threshold = setting('LOG_LEVEL');
  if (threshold === 'silent') return;
  if (level === 'debug' && threshold !== 'debug') return;
  if (level === 'info' && threshold === 'warn') return;
  const trace = setting('_X_AMZN_TRACE_ID');
  const line = JSON.stringify({
    level: level.toUpperCase(),
    message: msg,
    timestamp: new Date().toISOString(),
    service: SERVICE_NAME,
    ...invocations.getStore(),
    ...(trace ? { xray_trace_id: trace.split(';')[0]!.replace('Root=', '') } : {}),
    ...(redact(fields) as object),
  });
  writer(level, line);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};

/**
 * An error as log fields: its name and message, and its cause's (one level: an SDK error inside an
 * AppError, the store's error inside an InvariantError). Messages of thrown errors are ours or the
 * SDK's, never a client's secret.
 */
export function errorFields(err: unknown): { error: string; cause?: string } {
  const text = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  const cause = err instanceof Error ? err.cause : undefined;
  return { error: text(err), ...(cause === undefined ? {} : { cause: text(cause) }) };
}
