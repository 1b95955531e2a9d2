/**
 * Runs a handler as Lambda would under its role: inside a grant scope made from its row of the
 * route table, so the DynamoDB and SQS clients refuse what infra would not grant
 * (local/lambda/grant-guard.ts). A refusal fails the call even when the handler caught the error: in
 * AWS that would be a silent fault (a gap never filled, a retry never sent).
 */

import { actionsOf, type FunctionGrant } from '../../lib/function-grants.ts';
import {
  type Route,
  routeGrant,
  type SocketRoute,
  socketRouteGrant,
  workerGrants,
  type workers,
} from '../../lib/routes.ts';
import { type GrantScope, runInGrantScope } from './grant-guard.ts';

export class GrantViolation extends Error {}

export async function runGranted<T>(name: string, grant: FunctionGrant, fn: () => Promise<T>): Promise<T> {
  const scope: GrantScope = { name, allowed: new Set(actionsOf(grant)), denied: [] };
  const result = await runInGrantScope(scope, fn);
  if (scope.denied.length > 0) {
    throw new GrantViolation(
      `${name} used ${[...new Set(scope.denied)].join(', ')}, which its grant (table: ${grant.table}, queue: ${grant.queue ?? 'none'}, connections: ${grant.connections ?? 'none'}) does not allow; fix its row in lib/routes.ts or the code.`,
    );
  }
  return result;
}

export const runAsRoute = <T>(route: Route, fn: () => Promise<T>): Promise<T> =>
  runGranted(route.name, routeGrant(route), fn);

export const runAsWorker = <T>(name: keyof typeof workers, fn: () => Promise<T>): Promise<T> =>
  runGranted(name, workerGrants[name], fn);

export const runAsSocketRoute = <T>(route: SocketRoute, fn: () => Promise<T>): Promise<T> =>
  runGranted(route.name, socketRouteGrant(route), fn);
