/**
 * The event `npm run invoke -- <function>` sends when given none, and that test/local/samples-run.test.ts
 * and the cost bench run against a fresh local runtime. A route's is made from its row: the request
 * of `doc.example` (ids the demo seed makes, local/demo/identity.ts) from the demo caller, as API
 * Gateway passes it after the authorizer, so a new route needs no file. The other triggers (the
 * authorizer's token, SQS and stream batches, the schedule, the WebSocket frames) are not in a row:
 * theirs are the files in events/.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type DocumentedRoute, documentedRoutes } from '../../lib/route-docs.ts';
import { type ProxyEventInit, proxyEvent } from '../gateway/proxy-event.ts';
import { repoRoot } from '../lambda/handlers.ts';
import { DEMO_CALLER } from './identity.ts';

/** What a caller may set besides the row's example (scripts/make-event.ts takes it on its command line). */
export type SampleOverrides = Partial<Omit<ProxyEventInit, 'route' | 'body'>> & { body?: unknown };

/** `route.path` with each `{param}` replaced by its value, as the request's path. */
const filledPath = (path: string, params: Readonly<Record<string, string>>): string =>
  path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${path}: give it in the row's doc.example`);
    return encodeURIComponent(value);
  });

/** The REST proxy event of a route's example request (with `overrides` on top). */
export function routeSampleEvent(route: DocumentedRoute, overrides: SampleOverrides = {}): APIGatewayProxyEvent {
  const example = route.doc.example ?? {};
  const pathParameters = overrides.pathParameters ?? (example.params ? { ...example.params } : null);
  const json = overrides.body ?? example.body;
  const body = json === undefined ? null : typeof json === 'string' ? json : JSON.stringify(json);
  return proxyEvent({
    query: example.query ? { ...example.query } : null,
    ...(route.auth ? { caller: DEMO_CALLER } : {}),
    ...overrides,
    route,
    path: overrides.path ?? filledPath(route.path, pathParameters ?? {}),
    pathParameters,
    body,
    headers: {
      ...(body ? { 'Content-Type': 'application/json' } : {}),
      ...(route.streaming ? { Accept: 'text/event-stream' } : {}),
      ...overrides.headers,
    },
  });
}

/** The file of a sample no row can make (a worker's, the authorizer's, a push channel route's): events/<name>.json. */
export const sampleFile = (name: string): string => join(repoRoot, 'events', `${name}.json`);

/** The sample event of a function: a route's from its row, another's from events/<name>.json. */
export function sampleEvent(name: string, table: readonly DocumentedRoute[] = documentedRoutes): unknown {
  const route = table.find((r) => r.name === name);
  return route ? routeSampleEvent(route) : JSON.parse(readFileSync(sampleFile(name), 'utf8'));
}

/**
 * The routes in the order the samples test and the cost bench run their samples (by name): every
 * sample leaves what the ones after it name (each deletes or moves only a demo object of its own).
 */
export const routesInSampleOrder = (table: readonly DocumentedRoute[] = documentedRoutes): DocumentedRoute[] =>
  [...table].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
