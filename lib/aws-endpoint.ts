/**
 * SDK client settings for an endpoint override (DynamoDB Local, fauxqs): a fixed region and
 * dummy credentials, since emulators check neither (DynamoDB Local run without `-sharedDb`
 * keeps a database per access key id and region: EMULATOR_ACCESS_KEY_ID picks it). In AWS the override is unset and the SDK's
 * own region and credential chain apply.
 *
 * Locally the SDK tries more often, and without the SDK's shared retry quota
 * (lib/aws/emulator-retry.ts says why): DynamoDB Local answers a write that waited too long for an
 * item lock with a 500 ("This request will succeed in actual DynamoDB API"), which many concurrent
 * transactions on one hot item (50 installs of one template) on a busy machine provoke.
 * `attempts` lets a caller that probes for readiness ask for one.
 */

import { emulatorRetryStrategy } from './aws/emulator-retry.ts';
import { setting } from './core/environment.ts';
import { LOCAL_DEFAULTS } from './core/settings.ts';

const EMULATOR_ATTEMPTS = 12;
const AWS_ATTEMPTS = 5;

const emulatorCredentials = () => ({
  accessKeyId: setting('EMULATOR_ACCESS_KEY_ID') ?? 'local',
  secretAccessKey: 'local',
});

/** The same override for a call of lib/aws/json-protocol.ts: the emulator's endpoint and dummy credentials. */
export const emulatorJsonCall = (endpoint: string | undefined) =>
  endpoint ? { endpoint, credentials: async () => emulatorCredentials() } : {};

/**
 * What a client made by endpointOverride reaches: the endpoint and, at an emulator, the database its
 * access key id picks. A cache of clients is keyed by it (a test worker runs many files, each its own
 * database; a Lambda has one environment per process, where this is constant).
 */
export const clientScope = (endpoint: string | undefined): string =>
  endpoint ? `${endpoint} ${emulatorCredentials().accessKeyId}` : '';

export function endpointOverride(endpoint: string | undefined, attempts = EMULATOR_ATTEMPTS) {
  return endpoint
    ? {
        endpoint,
        region: setting('AWS_REGION') ?? LOCAL_DEFAULTS.region,
        credentials: emulatorCredentials(),
        maxAttempts: attempts,
        retryStrategy: emulatorRetryStrategy(attempts),
      }
    : { maxAttempts: AWS_ATTEMPTS };
}
