import { ApiError } from '../errors.ts';
import type { ErrorBody } from '../types/common.ts';

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as ErrorBody | null)?.error;
  return (
    typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string'
  );
}

/** An ApiError from an error response, whether or not the body is the service's error format. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) {
    const { code, message, details } = body.error;
    return new ApiError({ status: response.status, code, message, details, requestId });
  }
  // Something in front of the service answered (a proxy, a gateway timeout): keep what it said.
  const message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${text ? `: ${text.slice(0, 200)}` : ''}`;
  return new ApiError({ status: response.status, code: `http_${response.status}`, message, requestId });
}
