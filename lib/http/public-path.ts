/**
 * What the client's URL holds before the API's own paths. On the execute-api URL that is the
 * stage (`requestContext.path` = `/prod/v1/…` while `path` = `/v1/…`); behind a custom domain
 * mapped at its root it is nothing. A Location header built from a route path needs it, or it
 * points outside the stage.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

const PREFIX = /^(\/[A-Za-z0-9._~-]+)*$/;

export function publicPathPrefix(event: Pick<APIGatewayProxyEvent, 'path' | 'requestContext'>): string {
  const seen = event.requestContext?.path;
  const own = event.path;
  if (!seen || !own || !seen.endsWith(own)) return '';
  const prefix = seen.slice(0, seen.length - own.length);
  // Only plain path segments: anything else is not a prefix API Gateway would produce.
  return PREFIX.test(prefix) ? prefix : '';
}
