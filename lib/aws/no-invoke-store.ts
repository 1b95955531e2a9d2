/**
 * Stands in for `@aws/lambda-invoke-store` in the Lambda bundles only (infra/lambda-function.ts
 * aliases it). The SDK's recursion-detection middleware asks it for the invocation's X-Ray trace
 * id and W3C traceparent; with no store it takes the trace id from `_X_AMZN_TRACE_ID`, which
 * Lambda sets for every invocation of a function that serves one request at a time (all of ours),
 * and sends no traceparent. About 2 KB of every bundle.
 */
export const InvokeStore = {
  getInstanceAsync: async (): Promise<undefined> => undefined,
};
