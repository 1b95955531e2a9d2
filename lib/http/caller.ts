import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';

/** API Gateway passes authorizer context values as strings; this is the one place that reads them. */
export function callerFromEvent(event: APIGatewayProxyEvent): Caller {
  const ctx = event.requestContext?.authorizer ?? {};
  const userId = ctx['userId'];
  const workspaceId = ctx['workspaceId'];
  if (typeof userId !== 'string' || typeof workspaceId !== 'string') {
    throw new AppError('unauthorized', 'A valid API key is required.');
  }
  return {
    userId,
    workspaceId,
    name: String(ctx['name'] ?? ''),
    verified: String(ctx['verified']) === 'true',
    operator: String(ctx['operator']) === 'true',
  };
}

/** The inverse of callerFromEvent, for the authorizer's `context`. */
export function callerToContext(caller: Caller): Record<string, string | boolean> {
  return {
    userId: caller.userId,
    workspaceId: caller.workspaceId,
    name: caller.name,
    verified: caller.verified,
    operator: caller.operator,
  };
}
