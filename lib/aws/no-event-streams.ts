/**
 * Stands in for `@smithy/core/event-streams` in the Lambda bundles only (infra/lambda-function.ts
 * aliases it). The SDK's HTTP protocol imports it lazily, for operations that stream events; the
 * DynamoDB and SQS operations these functions call have none, and the module is about 15 KB of
 * every bundle. Reaching it anyway is a bug in the bundling, said loudly.
 */
const unavailable = (): never => {
  throw new Error('AWS SDK event streams are not bundled (lib/aws/no-event-streams.ts).');
};

export class EventStreamSerde {
  constructor() {
    unavailable();
  }
}
export const eventStreamSerdeProvider = unavailable;
/**
 * What a client whose API has event-stream operations (Lambda's InvokeWithResponseStream) resolves
 * when it is made: its config, unchanged, since no such operation is called. No function bundles
 * such a client; the hand-made calls' bench does, to weigh it with the functions' trims.
 */
export const resolveEventStreamSerdeConfig = <T>(config: T): T => config;
