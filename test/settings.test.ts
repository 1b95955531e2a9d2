import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SettingName, setting } from '../lib/core/environment.ts';
import { ENVIRONMENT } from '../lib/core/environment-declaration.ts';
import { ENVIRONMENT_KINDS } from '../lib/core/environment-kinds.ts';
import { DELIVERY, LOCAL_DEFAULTS } from '../lib/core/settings.ts';
import { allowedOrigins } from '../lib/http/cors.ts';
import { assertSettings, SettingsError } from '../local/settings-check.ts';
import { KINDS_FILE, kindsModule, SETTINGS_DOCS, withSettings } from '../scripts/settings-doc.ts';

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
      TABLE_NAME: 't',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8123',
      DEVELOPMENT_MODE: true,
      LOG_LEVEL: 'debug',
      PORT: 3123,
    });
    expect(assertSettings({})).toMatchObject({
      TABLE_NAME: undefined,
      DEVELOPMENT_MODE: false,
      METRICS_TO_STDOUT: false,
      LOG_LEVEL: 'info',
      CORS_ALLOWED_ORIGINS: ['*'],
      PORT: LOCAL_DEFAULTS.port,
      LOCAL_DYNAMODB_PORT: LOCAL_DEFAULTS.dynamoPort,
      DATA_DIR: LOCAL_DEFAULTS.dataDir,
      DELIVERY_RETRY_DELAYS_SECONDS: DELIVERY.retryDelaysSeconds,
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
    expect(setting('DEVELOPMENT_MODE', { DEVELOPMENT_MODE: 'TRUE' })).toBe(false);
    expect(setting('DEVELOPMENT_MODE', { DEVELOPMENT_MODE: 'yes' })).toBe(false);
    expect(setting('LOG_LEVEL', { LOG_LEVEL: 'loud' })).toBe('info');
  });

  it('is what the modules that used to read the environment read', () => {
    expect(allowedOrigins({ CORS_ALLOWED_ORIGINS: 'https://a.example, https://b.example' })).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it('npm start refuses a wrong value before starting anything, with the sentence and exit code 1', () => {
    const run = spawnSync(process.execPath, [join(root, 'local/start.ts')], {
      cwd: root,
      env: { ...process.env, DEVELOPMENT_MODE: 'yes', PORT: '0', DATA_DIR: ':memory:', DYNAMODB_ENDPOINT: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toContain('Cannot start: DEVELOPMENT_MODE must be "true" or "false", not "yes".');
    expect(run.status).toBe(1);
  });

  it.each(Object.keys(SETTINGS_DOCS))(
    '%s: the variable table is what `npm run settings-doc` writes from the declaration',
    (file) => {
      const doc = readFileSync(join(root, file), 'utf8');
      const table = SETTINGS_DOCS[file as keyof typeof SETTINGS_DOCS]();
      expect(doc, `run \`npm run settings-doc\` and commit ${file}`).toBe(withSettings(doc, table, file));
      // The check sees drift: a declared variable missing from the table fails it.
      expect(withSettings(doc, table.replace(/\n\| `PORT`[^\n]*/, ''), file)).not.toBe(doc);
    },
  );

  it('reads each variable by the kind the declaration gives it (the generated kinds are current)', () => {
    expect(readFileSync(join(root, KINDS_FILE), 'utf8'), `run \`npm run settings-doc\` and commit ${KINDS_FILE}`).toBe(
      kindsModule(),
    );
    for (const [name, declared] of Object.entries(ENVIRONMENT)) {
      expect(ENVIRONMENT_KINDS[name as SettingName], name).toBe(declared.kind);
    }
  });

  it('documents each default the reader really falls back to', () => {
    const bare = Object.entries(ENVIRONMENT).flatMap(([name, d]) =>
      'default' in d && /^[\w.:-]+$/.test(d.default) ? [[name as SettingName, d.default] as const] : [],
    );
    expect(bare.map(([name]) => name)).toEqual(
      expect.arrayContaining(['PORT', 'LOCAL_DYNAMODB_PORT', 'HOST', 'DATA_DIR', 'LOG_LEVEL', 'REPLAY_PAGE_ITEMS']),
    );
    for (const [name, documented] of bare) expect(String(setting(name, {})), name).toBe(documented);
  });

  it('checks every declared variable at start, by its kind', () => {
    expect(Object.keys(assertSettings({})).sort()).toEqual(Object.keys(ENVIRONMENT).sort());
    expect(() => assertSettings({ REPLAY_PAGE_ITEMS: '0' })).toThrow(
      new SettingsError('REPLAY_PAGE_ITEMS must be a whole number, at least 1, not "0".'),
    );
  });
});
