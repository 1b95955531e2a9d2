/**
 * The resources an authorizer's Allow names. An API key may call every route (API Gateway caches
 * the answer per token, so it must cover more than the route first called); a portal token only
 * its agent's `portal` rows of the route table, with that agent's id in the path and any value for
 * the other parameters. API Gateway evaluates the cached policy on every request, so the scope
 * holds however long the answer is cached.
 */
import type { Caller } from '../core/caller.ts';
import { type Route, routes } from '../routes.ts';

/** `methodArn` is `arn:aws:execute-api:<region>:<account>:<api id>/<stage>/<METHOD>/<path>`. */
export function allowedResources(methodArn: string, caller: Caller, table: readonly Route[] = routes): string[] {
  const [arnPrefix, stage] = methodArn.split('/');
  const base = `${arnPrefix}/${stage}`;
  const portal = caller.portal;
  if (!portal) return [`${base}/*`];
  return table
    .filter((route) => route.portal === true)
    .map(
      (route) => `${base}/${route.method}${route.path.replaceAll('{id}', portal.agentId).replace(/\{[^}]+\}/g, '*')}`,
    );
}

/** API Gateway's match of a policy resource against a method ARN: `*` is any run of characters, `/` included. */
export function resourceMatches(resource: string, methodArn: string): boolean {
  const pattern = resource
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(methodArn);
}
