import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as settings from '../lib/core/settings.ts';
import { DELIVERY, LOCAL_DEFAULTS } from '../lib/core/settings.ts';
import { assertSettings, SettingsError } from '../lib/core/settings-check.ts';
import { allowedOrigins } from '../lib/http/cors.ts';

const root = join(import.meta.dirname, '..');

describe('settings (lib/core/settings.ts)', () => {
  it('reads the environment it is given, with the documented defaults', () => {
    const s = assertSettings({
      TABLE_NAME: 't',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8123',
      DEVELOPMENT_MODE: 'true',
      LOG_LEVEL: 'debug',
      PORT: '3123',
    });
    expect(s).toMatchObject({
      tableName: 't',
      dynamoEndpoint: 'http://127.0.0.1:8123',
      developmentMode: true,
      logLevel: 'debug',
      port: 3123,
    });
    expect(assertSettings({})).toMatchObject({
      tableName: undefined,
      developmentMode: false,
      metricsToStdout: false,
      logLevel: 'info',
      corsAllowedOrigins: ['*'],
      port: LOCAL_DEFAULTS.port,
      dynamoPort: LOCAL_DEFAULTS.dynamoPort,
      dataDir: LOCAL_DEFAULTS.dataDir,
      retryDelaysSeconds: DELIVERY.retryDelaysSeconds,
    });
  });

  it.each([
    [{ DEVELOPMENT_MODE: 'yes' }, 'DEVELOPMENT_MODE must be "true" or "false", not "yes".'],
    [{ METRICS_TO_STDOUT: '1' }, 'METRICS_TO_STDOUT must be "true" or "false", not "1".'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be debug, info, warn or silent, not "loud".'],
    [{ PORT: 'eighty' }, 'PORT must be a port number (0–65535), not "eighty".'],
    [{ LOCAL_DYNAMODB_PORT: '70000' }, 'LOCAL_DYNAMODB_PORT must be a port number (0–65535), not "70000".'],
    [
      { DYNAMODB_ENDPOINT: 'localhost 8000' },
      'DYNAMODB_ENDPOINT must be a URL such as http://127.0.0.1:8000, not "localhost 8000".',
    ],
    [
      { DELIVERY_RETRY_DELAYS_SECONDS: '0,soon' },
      'DELIVERY_RETRY_DELAYS_SECONDS must be a comma-separated list of whole seconds (0 to 43200), not "0,soon".',
    ],
    [
      { WEBHOOK_AUTO_DISABLE_AFTER_SECONDS: '0' },
      'WEBHOOK_AUTO_DISABLE_AFTER_SECONDS must be a whole number of seconds, at least 1',
    ],
  ])('refuses %o at start with a sentence naming the variable', (env, message) => {
    expect(() => assertSettings(env)).toThrow(new SettingsError(message));
  });

  it('during a request, a flag is on only for the exact value "true" and an unknown log level is info', () => {
    expect(settings.developmentMode({ DEVELOPMENT_MODE: 'TRUE' })).toBe(false);
    expect(settings.developmentMode({ DEVELOPMENT_MODE: 'yes' })).toBe(false);
    expect(settings.logLevel({ LOG_LEVEL: 'loud' })).toBe('info');
  });

  it('is what the modules that used to read the environment read', () => {
    expect(allowedOrigins({ CORS_ALLOWED_ORIGINS: 'https://a.example, https://b.example' })).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it('npm start refuses a wrong value before starting anything, with the sentence and exit code 1', () => {
    const run = spawnSync(
      process.execPath,
      [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'local/start.ts')],
      {
        cwd: root,
        env: { ...process.env, DEVELOPMENT_MODE: 'yes', PORT: '0', DATA_DIR: ':memory:', DYNAMODB_ENDPOINT: '' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.stderr).toContain('Cannot start: DEVELOPMENT_MODE must be "true" or "false", not "yes".');
    expect(run.status).toBe(1);
  });
});
