import { afterAll, beforeAll } from 'vitest';
import { createLocalApi, listen, type LocalApi } from '../../local/api-gateway.ts';

/** Starts the local API Gateway stand-in on a free port for the test file; `api.url` once ready. */
export function useLocalApi(): { readonly url: string } {
  let api: LocalApi | undefined;
  beforeAll(async () => {
    api = await listen(createLocalApi(), 0);
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
