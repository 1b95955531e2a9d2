/**
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
} from '@aws-sdk/client-api-gateway';
import { type IssuedKey, usageIdentifierFor } from './api-keys.ts';

export async function registerWithUsagePlan(
  client: APIGatewayClient,
  usagePlanId: string,
  issued: IssuedKey,
): Promise<void> {
  const created = await client.send(
    new CreateApiKeyCommand({
      name: `user-${issued.user_id}`,
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
