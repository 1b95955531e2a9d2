/**
 * Takes the SDK client's logger middleware off. It runs after every call and, with no logger given
 * (the SDK's default is a no-op logger, which still has an `info` to call), walks the call's whole
 * input and output against the operation's schema to mask sensitive members for a log line nobody
 * writes: a GetRecords page or a BatchGetItem answer member by member. This service never gives the
 * SDK a logger (it logs its own lines, lib/observability/log.ts). In the push bench's CPU profile
 * the walk was about 5 % of the push thread's CPU (docs/benchmarks.md, "Push channel"); in Lambda
 * it is the same CPU per call, billed as duration.
 */
interface WithMiddlewareStack {
  middlewareStack: { remove(toRemove: string): boolean };
}

/** The middleware's name in @aws-sdk/core (test/aws/no-sdk-logger.test.ts fails if an SDK update renames it). */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

export function withoutSdkLogger<T extends WithMiddlewareStack>(client: T): T {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
