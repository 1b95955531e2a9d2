import { MarketplaceClient } from '../../../client/index.ts';
import { createTestUser, type TestUser } from '../../support/lambda.ts';

/** A real user with a real key, and a client that talks to the local API as that user. */
export async function clientForNewUser(
  baseUrl: string,
  options: Parameters<typeof createTestUser>[0] = {},
): Promise<{ user: TestUser; client: MarketplaceClient }> {
  const user = await createTestUser(options);
  // No retries: a test should see the service's first answer.
  return { user, client: new MarketplaceClient({ apiKey: user.apiKey, baseUrl, maxRetries: 0 }) };
}
