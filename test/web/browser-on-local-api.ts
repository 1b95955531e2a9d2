import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { apiCall } from '../support/api-call.ts';
import { useLocalApi } from '../support/local-api.ts';
import { launchChromium } from './browser.ts';

/**
 * A test file's in-process local runtime and one Chromium for it, with `call` for the API as the
 * test's own users (their keys), beside what the page does with its own token.
 */
export function useBrowserOnLocalApi(): {
  api: { readonly url: string };
  browser: () => Browser;
  call: (key: string, method: string, path: string, body?: unknown) => Promise<any>;
} {
  const api = useLocalApi();
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    api,
    browser: () => browser!,
    call: (key, method, path, body) => apiCall(api.url, key, method, path, body),
  };
}
