/**
 * A service key's entry in the stage's usage plan: made by create-key, removed by revoke-key.
 *
 * Registers a new service key with the stage's usage plan, so API Gateway limits it on its own:
 * one API Gateway API key per service key, its value the key's usage identifier (what the
 * authorizer returns as `usageIdentifierKey`), attached to the plan. Run by the admin command
 * before the key is stored; a key the plan does not know would be refused by API Gateway.
 * If attaching fails, the API Gateway key just made is deleted again.
 */
import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetUsagePlanKeysCommand,
} from '@aws-sdk/client-api-gateway';
import { type IssuedKey, usageIdentifierFor } from './api-keys.ts';

/** The API Gateway API key's name: its user's, so a revocation finds a user's few keys by name. */
const gatewayKeyName = (userId: string): string => `user-${userId}`;

export async function registerWithUsagePlan(
  client: APIGatewayClient,
  usagePlanId: string,
  issued: IssuedKey,
): Promise<void> {
  const created = await client.send(
    new CreateApiKeyCommand({
      name: gatewayKeyName(issued.user_id),
      description: 'Per-key limits of a template marketplace API key (created by the admin command).',
      value: usageIdentifierFor(issued.api_key),
      enabled: true,
    }),
  );
  try {
    await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: created.id, keyType: 'API_KEY' }));
  } catch (err) {
    await client.send(new DeleteApiKeyCommand({ apiKey: created.id })).catch(() => undefined);
    throw err;
  }
}

/**
 * Takes a revoked key out of the usage plan and deletes its API Gateway API key, so nothing counted
 * against it (a portal link's requests included, whose usage identifier is the key's) passes API
 * Gateway any more, and revoked keys do not pile up towards the account's API key quota. Found by
 * the user's name and the key's usage identifier (its hash). False when the plan has no such key
 * (removed by an earlier run, or a key made before keys were registered).
 */
export async function removeFromUsagePlan(
  client: APIGatewayClient,
  usagePlanId: string,
  key: { userId: string; usageKey: string },
): Promise<boolean> {
  let position: string | undefined;
  do {
    const page = await client.send(
      new GetUsagePlanKeysCommand({ usagePlanId, nameQuery: gatewayKeyName(key.userId), position, limit: 500 }),
    );
    const found = page.items?.find((item) => item.value === key.usageKey);
    if (found?.id) {
      await client.send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId: found.id }));
      await client.send(new DeleteApiKeyCommand({ apiKey: found.id }));
      return true;
    }
    position = page.position;
  } while (position);
  return false;
}
