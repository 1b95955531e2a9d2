/**
 * SDK client settings for an endpoint override (DynamoDB Local, fauxqs): a fixed region and
 * dummy credentials, since emulators check neither. In AWS the override is unset and the SDK's
 * own region and credential chain apply.
 *
 * Locally the SDK tries more often: DynamoDB Local answers a write that waited too long for an
 * item lock with a 500 ("This request will succeed in actual DynamoDB API"), which many concurrent
 * transactions on one hot item (50 installs of one template) on a busy machine provoke. The SDK
 * retries 500s with backoff; five attempts were not always enough there.
 */
export function endpointOverride(endpoint: string | undefined) {
  return endpoint
    ? { endpoint, region: process.env['AWS_REGION'] ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 12 }
    : { maxAttempts: 5 };
}
