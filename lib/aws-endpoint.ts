/**
 * SDK client settings for an endpoint override (DynamoDB Local, fauxqs): a fixed region and
 * dummy credentials, since emulators check neither. In AWS the override is unset and the SDK's
 * own region and credential chain apply.
 */
import * as settings from './core/settings.ts';
import { LOCAL_DEFAULTS } from './core/settings.ts';
export function endpointOverride(endpoint: string | undefined) {
  return {
    ...(endpoint
      ? { endpoint, region: settings.region() ?? LOCAL_DEFAULTS.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 5,
  };
}
