import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  createLocalApi,
  type Exchange,
  type LocalApi,
  type LocalApiOptions,
  listen,
} from '../../local/gateway/api-gateway.ts';
import { openApiProblems } from './openapi-responses.ts';

/**
 * Starts the local API Gateway stand-in on a free port for the test file; `api.url` once ready.
 * Every answer it gives during a test is held to generated/openapi.json; a test whose requests got an
 * undocumented answer fails in its afterEach with the list of problems. It limits each key as the
 * usage plan does, unless a test that is about something else and must call faster than one key
 * may (a poller racing writers) gives other `keyLimits`.
 */
export function useLocalApi(options: Omit<LocalApiOptions, 'onExchange'> = {}): { readonly url: string } {
  let api: LocalApi | undefined;
  const problems: string[] = [];
  const check = (exchange: Exchange) => {
    // Unknown paths and preflights have no operation.
    if (!exchange.route || exchange.method === 'OPTIONS') return;
    problems.push(
      ...openApiProblems(exchange.route, {
        status: exchange.status,
        headers: exchange.headers,
        body: exchange.body.toString('utf8'),
      }),
    );
  };
  beforeAll(async () => {
    api = await listen(createLocalApi(undefined, { ...options, onExchange: check }), 0);
    // As `npm start` does: portal links point at this API's own page (the file's environment is put back after it).
    process.env['PORTAL_URL'] ??= `${api.url}/portal/`;
  });
  afterEach(async () => {
    // Answers finish on 'close', a moment after the client has read them.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(problems.splice(0), 'answers that generated/openapi.json does not describe').toEqual([]);
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
