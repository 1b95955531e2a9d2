/**
 * Which requests take an `Idempotency-Key` (docs/api.md "Idempotency"): every route but a GET
 * creates, moves or removes something, so POST, PUT, PATCH and DELETE all do. The HTTP stack and
 * the OpenAPI document both read it here.
 */
export const takesIdempotencyKey = (method: string): boolean => method.toUpperCase() !== 'GET';
