/**
 * One-line JSON logs (CloudWatch-friendly). Field names that can carry credentials are redacted
 * here, in one place, so a careless call cannot leak an API key or a webhook secret.
 */
const SECRET_FIELD = /secret|api_?key|authorization|signature|password|token|challenge/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

type Level = 'debug' | 'info' | 'warn' | 'error';

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (process.env['LOG_LEVEL'] === 'silent') return;
  if (level === 'debug' && process.env['LOG_LEVEL'] !== 'debug') return;
  const line = JSON.stringify({ level, msg, time: new Date().toISOString(), ...(redact(fields) as object) });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
