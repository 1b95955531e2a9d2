/**
 * Whether a caller's access to an agent's feed still stands, for an answer that outlives its
 * request: the SSE stream runs up to 15 minutes on one authorization, so it asks again as it goes.
 * Stands while the key (or the portal link, and the key that made it) is not revoked and its owner
 * still owns the agent, exactly what the authorizer and the route checked at the start.
 */
import { findCallerByKeyHash } from '../../accounts/api-keys.ts';
import { getAgent } from '../../agents/store.ts';
import type { Caller } from '../../core/caller.ts';
import { findCallerByPortalLinkId } from '../../portal/portal-caller.ts';

export async function feedAccessStands(caller: Caller, agentId: string): Promise<boolean> {
  const now = caller.portal
    ? await findCallerByPortalLinkId(caller.portal.linkId)
    : caller.usageKey
      ? await findCallerByKeyHash(caller.usageKey)
      : undefined;
  if (!now || now.userId !== caller.userId) return false;
  const agent = await getAgent(agentId);
  return agent?.owner_id === caller.userId;
}
