import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Caller, PortalScope } from '../core/caller.ts';
import { AppError, notFound } from '../core/errors.ts';

/** API Gateway passes authorizer context values as strings; this is the one place that reads them. */
export function callerFromEvent(event: APIGatewayProxyEvent): Caller {
  const ctx = event.requestContext?.authorizer ?? {};
  const userId = ctx['userId'];
  const workspaceId = ctx['workspaceId'];
  if (typeof userId !== 'string' || typeof workspaceId !== 'string') {
    throw new AppError('unauthorized', 'A valid API key is required.');
  }
  const caller: Caller = {
    userId,
    workspaceId,
    name: String(ctx['name'] ?? ''),
    verified: String(ctx['verified']) === 'true',
    operator: String(ctx['operator']) === 'true',
    ...(typeof ctx['usageKey'] === 'string' ? { usageKey: ctx['usageKey'] } : {}),
  };
  const portalAgentId = ctx['portalAgentId'];
  if (typeof portalAgentId !== 'string') return caller;
  const portal = {
    agentId: portalAgentId,
    linkId: String(ctx['portalLinkId']),
    expiresAt: String(ctx['portalExpiresAt']),
  };
  checkPortalScope(portal, event.pathParameters?.['id']);
  return { ...caller, portal };
}

/**
 * A portal token's second fence (the first is the authorizer's policy, which names only that
 * agent's portal routes): the expiry is checked again on every request (the authorizer's answer
 * is not cached today, and a cache turned on later must not stretch a link's life), and a path
 * naming another agent is a 404 as for any stranger's id.
 */
function checkPortalScope(portal: PortalScope, pathId: string | undefined, now = Date.now()): void {
  if (!(Date.parse(portal.expiresAt) > now)) throw new AppError('unauthorized', 'This portal link has expired.');
  if (pathId !== portal.agentId) throw notFound();
}

/** The inverse of callerFromEvent, for the authorizer's `context`. */
export function callerToContext(caller: Caller): Record<string, string | boolean> {
  return {
    userId: caller.userId,
    workspaceId: caller.workspaceId,
    name: caller.name,
    verified: caller.verified,
    operator: caller.operator,
    ...(caller.usageKey ? { usageKey: caller.usageKey } : {}),
    ...(caller.portal
      ? {
          portalAgentId: caller.portal.agentId,
          portalLinkId: caller.portal.linkId,
          portalExpiresAt: caller.portal.expiresAt,
        }
      : {}),
  };
}
