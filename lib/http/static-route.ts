import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { corsHeaders } from './cors.ts';
import { withRouteSpec } from './route-spec.ts';

/**
 * The stack of a route that needs no key, no input and no store (`/health`, `/openapi.json`): the
 * same common headers as every answer (`x-request-id`, CORS, JSON) without the parsing,
 * idempotency and store modules of stack.ts, so its function bundles none of the AWS SDK.
 */
export function staticRoute(body: () => unknown, cacheControl = 'no-store'): (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> {
  return withRouteSpec(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const origin = Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === 'origin')?.[1];
    return {
      statusCode: 200,
      headers: {
        ...corsHeaders(origin),
        'x-request-id': event.requestContext?.requestId || randomUUID(),
        'cache-control': cacheControl,
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify(body()),
    };
  }, { auth: false });
}
