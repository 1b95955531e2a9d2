/**
 * The caller behind a portal token, for the authorizer: one strongly consistent GetItem, like an
 * API key's. The caller is the agent's owner narrowed to that agent (`portal`), never an operator,
 * so no operator-only branch of a service can be reached through a link.
 */
import type { Caller } from '../core/caller.ts';
import { getPortalLink } from './store.ts';
import { portalLinkIdOf, tokenMatches } from './token.ts';

export async function findCallerByPortalToken(token: string, now = Date.now()): Promise<Caller | undefined> {
  const linkId = portalLinkIdOf(token);
  if (!linkId) return undefined;
  const link = await getPortalLink(linkId);
  if (!link || !tokenMatches(token, link.token_hash)) return undefined;
  if (link.revoked_at !== undefined || Date.parse(link.link_expires_at) <= now) return undefined;
  return {
    userId: link.owner_id,
    workspaceId: link.workspace_id,
    name: '',
    verified: false,
    operator: false,
    portal: { agentId: link.agent_id, expiresAt: link.link_expires_at },
    ...(link.usage_key ? { usageKey: link.usage_key } : {}),
  };
}
