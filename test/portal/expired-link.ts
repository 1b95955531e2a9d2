import { hashApiKey } from '../../lib/accounts/api-keys.ts';
import { putPortalLink } from '../../lib/portal/store.ts';
import { newPortalToken } from '../../lib/portal/token.ts';
import type { TestUser } from '../support/lambda.ts';

/** A real link of `owner`'s agent whose hour ended an hour ago (written directly: no clock to move in the authorizer). Its token. */
export async function expiredPortalToken(owner: TestUser, agentId: string): Promise<string> {
  const link = newPortalToken();
  const twoHoursAgo = Date.now() - 7_200_000;
  await putPortalLink({
    link_id: link.linkId,
    token_hash: link.hash,
    agent_id: agentId,
    owner_id: owner.userId,
    workspace_id: owner.workspaceId,
    created_at: new Date(twoHoursAgo).toISOString(),
    link_expires_at: new Date(twoHoursAgo + 3_600_000).toISOString(),
    usage_key: hashApiKey(owner.apiKey),
  });
  return link.token;
}
