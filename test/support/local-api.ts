import { afterAll, beforeAll } from 'vitest';
import { createLocalApi, listen, type LocalApi, type LocalApiOptions } from '../../local/api-gateway.ts';

/**
 * Starts the local API Gateway stand-in on a free port for the test file; `api.url` once ready.
 * It limits each key as the usage plan does, unless a test that is about something else and must
 * call faster than one key may (a poller racing writers) gives other `keyLimits`.
 */
export function useLocalApi(options: LocalApiOptions = {}): { readonly url: string } {
  let api: LocalApi | undefined;
  beforeAll(async () => {
    api = await listen(createLocalApi(undefined, options), 0);
  });
  afterAll(async () => {
    await api?.close();
  });
  return {
    get url() {
      if (!api) throw new Error('local API not started yet');
      return api.url;
    },
  };
}
