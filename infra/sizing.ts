/**
 * Memory per function where it differs from the stage's default (MB). Chosen from
 * `npm run bench -- coldstart` (peak RSS after import) and the cost model of docs/cost.md (the SSE
 * client-month, the delivery function's sizing): Lambda bills GB-seconds, and a function that mostly waits on DynamoDB or a webhook
 * receiver gains nothing from more memory once its cold start is paid.
 */
export const FUNCTION_MEMORY_MB: Record<string, number> = {
  // Holds a connection for up to 15 minutes while it sleeps between polls: memory is the cost.
  streamAgentEvents: 128,
  // Waits on the receivers: a batch lasts as long as its slowest POST (up to the 10 s deadline),
  // billed at this memory. Its CPU (TLS handshakes, signing) costs the same at any memory below a
  // vCPU; only the waiting grows with it. docs/cost.md compares 128, 256 and 512 MB.
  deliver: 128,
  // The same waiting, on SQS and EventBridge answers instead of webhook receivers.
  deliverToDestinations: 128,
};
