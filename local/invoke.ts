/**
 * One function, one event, as `sam local invoke` does: a route's, a push channel route's or a worker's handler, with its
 * grants (local/lambda/grants.ts) and a Lambda context. `npm run invoke` and the samples test share it.
 */

import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { FunctionGrant } from '../lib/function-grants.ts';
import { routeGrant, routes, socketRouteGrant, socketRoutes, workerGrants, workers } from '../lib/routes.ts';
import { invokeRoute } from './gateway/proxy-event.ts';
import { lambdaContext } from './lambda/context.ts';
import { runAsRoute, runAsSocketRoute, runAsWorker } from './lambda/grants.ts';
import { loadHandler } from './lambda/handlers.ts';
import { installAwsLambdaGlobal, loadStreamingHandler } from './lambda/streaming.ts';

export const functionNames: readonly string[] = [
  ...routes.map((r) => r.name),
  ...socketRoutes.map((r) => r.name),
  ...Object.keys(workers),
];

const isWorker = (name: string): name is keyof typeof workers => Object.hasOwn(workers, name);

function grantOf(name: string): FunctionGrant | undefined {
  const route = routes.find((r) => r.name === name);
  const socketRoute = socketRoutes.find((r) => r.name === name);
  if (socketRoute) return socketRouteGrant(socketRoute);
  return route ? routeGrant(route) : isWorker(name) ? workerGrants[name] : undefined;
}

/** True when the function reads or writes the table (health and /openapi.json do not). */
export const usesTable = (name: string): boolean => (grantOf(name)?.table ?? 'none') !== 'none';

/** True when the function sends to or takes from the delivery queue. */
export const usesQueue = (name: string): boolean => grantOf(name)?.queue !== undefined;

/** True when the function posts to the push channel's connections (@connections of the running API). */
export const usesConnections = (name: string): boolean => grantOf(name)?.connections !== undefined;

/**
 * Runs `name` with `event`. A streaming route writes to `stream` and resolves when its handler
 * ends (destroy the stream to end it early, as a client that goes away does); others resolve to
 * the handler's result.
 */
export async function invokeFunction(name: string, event: unknown, stream?: Writable): Promise<unknown> {
  installAwsLambdaGlobal();
  const route = routes.find((r) => r.name === name);
  if (route?.streaming) {
    if (!stream) throw new Error(`${name} streams its answer: give it a stream.`);
    const handler = await loadStreamingHandler(route);
    return runAsRoute(route, () => handler(event, stream, lambdaContext(name, route.timeoutSeconds ?? 10)));
  }
  if (route) return invokeRoute(route, event as APIGatewayProxyEvent);
  const socketRoute = socketRoutes.find((r) => r.name === name);
  if (socketRoute) {
    const handler = await loadHandler<(event: unknown, context: unknown) => Promise<unknown>>(socketRoute.handler);
    return runAsSocketRoute(socketRoute, () => handler(event, lambdaContext(name, 10)));
  }
  if (!isWorker(name)) throw new Error(`No function named ${name}.`);
  const handler = await loadHandler<(event: unknown, context: unknown) => Promise<unknown>>(workers[name]);
  return runAsWorker(name, () => handler(event, lambdaContext(name, 10)));
}
