import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { createUserWithKey, findCallerByApiKey, type NewUser } from '../../lib/accounts/api-keys.ts';
import type { Caller } from '../../lib/core/caller.ts';
import { type Route, routes } from '../../lib/routes.ts';
import { invokeRoute, proxyEvent } from '../../local/gateway/proxy-event.ts';
import { assertMatchesOpenApi } from './openapi-responses.ts';

export interface TestUser extends Caller {
  apiKey: string;
}

/** A real user with a real key, through the same code as the admin command. */
export async function createTestUser(input: Partial<NewUser> = {}): Promise<TestUser> {
  const issued = await createUserWithKey({ name: input.name ?? `user-${randomUUID().slice(0, 8)}`, ...input });
  const caller = await findCallerByApiKey(issued.api_key);
  if (!caller) throw new Error('key just issued was not found');
  return { ...caller, apiKey: issued.api_key };
}

export function routeNamed(name: string): Route {
  const route = routes.find((r) => r.name === name);
  if (!route) throw new Error(`no route named ${name}`);
  return route;
}

export interface InvokeOptions {
  caller?: Caller;
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** Objects are sent as JSON with Content-Type: application/json; strings are sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  body: any;
  raw: APIGatewayProxyResult;
}

/** Calls a route's handler with the REST proxy event API Gateway would send after the authorizer; the answer is checked against generated/openapi.json. */
export async function invoke(name: string, options: InvokeOptions = {}): Promise<InvokeResult> {
  const route = routeNamed(name);
  const headers: Record<string, string> = { ...options.headers };
  let body: string | null = null;
  if (typeof options.body === 'string') body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const raw = await invokeRoute(
    route,
    proxyEvent({
      route,
      caller: options.caller,
      headers,
      query: options.query ?? null,
      pathParameters: options.params ?? null,
      body,
    }),
  );
  const responseHeaders = Object.fromEntries(
    Object.entries(raw.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  // Every answer a test receives must be one the OpenAPI document describes.
  assertMatchesOpenApi(route, { status: raw.statusCode, headers: responseHeaders, body: raw.body ?? '' });
  return { status: raw.statusCode, headers: responseHeaders, body: raw.body ? JSON.parse(raw.body) : undefined, raw };
}
