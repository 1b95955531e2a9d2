/**
 * The stack of a route that needs no key, no input and no store (`/health`, `/openapi.json`): the
 * same common headers as every answer (`x-request-id`, CORS, JSON) without the parsing,
 * idempotency and store modules of middleware.ts, so its function bundles none of the AWS SDK.
 */

import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { AppError, validationError } from '../core/errors.ts';
import { corsHeaders } from './cors.ts';
import { errorBody, errorHeaders, statusOf } from './errors.ts';
import { withRouteSpec } from './route-spec.ts';

export function staticRoute(
  body: () => unknown | Promise<unknown>,
  cacheControl = 'no-store',
): (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> {
  return withRouteSpec(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const origin = Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === 'origin')?.[1];
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => ({
      statusCode: status,
      headers: {
        ...corsHeaders(origin),
        'x-request-id': event.requestContext?.requestId || randomUUID(),
        'cache-control': status === 200 ? cacheControl : 'no-store',
        'content-type': 'application/json; charset=utf-8',
        ...headers,
      },
      body: JSON.stringify(payload),
    });
    const refused = queryProblem(event) ?? bodyProblem(event);
    return refused ? answer(statusOf(refused), errorBody(refused), errorHeaders(refused)) : answer(200, await body());
  }, {});
}

/** As the shared stack for a route that declares no query parameters (without zod, which this bundle leaves out). */
function queryProblem(event: APIGatewayProxyEvent): AppError | undefined {
  const names = Object.keys(event.queryStringParameters ?? {});
  return names.length === 0
    ? undefined
    : validationError(
        names.map((path) => ({ path, message: 'Unknown field.' })),
        'The query string is not valid.',
      );
}

/** As the shared stack: no body, or an empty object, which many clients send with everything. */
function bodyProblem(event: APIGatewayProxyEvent): AppError | undefined {
  const raw =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : (event.body ?? '');
  if (raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return new AppError('invalid_json', 'The body is not valid JSON.');
  }
  const empty =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.keys(parsed).length === 0;
  return empty
    ? undefined
    : new AppError('validation_error', 'This route takes no request body.', [
        { path: '', message: 'Send no body (or an empty object).' },
      ]);
}
