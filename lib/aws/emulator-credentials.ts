/**
 * The credentials a hand-signed call carries to a local stand-in (the push channel's @connections,
 * the relay's Invoke of the push worker): the stand-ins check no signature, and the emulators' dummy
 * credentials keep the signer from looking for real ones. Undefined away from the emulators (Lambda's
 * own credentials, signed-request.ts).
 */
import { setting } from '../core/environment.ts';
import type { Credentials } from './signed-request.ts';

let local: { accessKeyId: string; credentials: Credentials } | undefined;

export function emulatorCredentials(): Credentials | undefined {
  if (setting('DYNAMODB_ENDPOINT') === undefined) return undefined;
  const accessKeyId = setting('EMULATOR_ACCESS_KEY_ID') ?? 'local';
  // One provider while the key id stands, so the signer made for it is reused (signed-request.ts).
  if (local?.accessKeyId !== accessKeyId)
    local = { accessKeyId, credentials: async () => ({ accessKeyId, secretAccessKey: 'local' }) };
  return local.credentials;
}
