/**
 * The caller behind a portal token, for the authorizer: two strongly consistent GetItems, the link's
 * and then the key's that made it, so a link dies with its key (revoked: the next request is
 * refused). The caller is the agent's owner narrowed to that agent (`portal`), never an operator,
 * so no operator-only branch of a service can be reached through a link.
 */
import { findCallerByKeyHash } from '../accounts/api-keys.ts';
import type { Caller } from '../core/caller.ts';
import { getPortalLink, type PortalLinkRecord } from './store.ts';
import { portalLinkIdOf, tokenMatches } from './token.ts';

export async function findCallerByPortalToken(token: string, now = Date.now()): Promise<Caller | undefined> {
  const linkId = portalLinkIdOf(token);
  if (!linkId) return undefined;
  const link = await getPortalLink(linkId);
  if (!link || !tokenMatches(token, link.token_hash)) return undefined;
  return callerOfLink(link, now);
}

/** The same by the link's id, for an answer that runs on after the authorizer (the SSE stream asks again). */
export async function findCallerByPortalLinkId(linkId: string, now = Date.now()): Promise<Caller | undefined> {
  const link = await getPortalLink(linkId);
  return link && callerOfLink(link, now);
}

async function callerOfLink(link: PortalLinkRecord, now: number): Promise<Caller | undefined> {
  if (link.revoked_at !== undefined || Date.parse(link.link_expires_at) <= now) return undefined;
  // A link stored without its key's identity names no key that stands: refused.
  if (!link.usage_key) return undefined;
  const key = await findCallerByKeyHash(link.usage_key);
  if (!key || key.userId !== link.owner_id) return undefined;
  return {
    userId: link.owner_id,
    workspaceId: link.workspace_id,
    name: '',
    verified: false,
    operator: false,
    portal: { agentId: link.agent_id, linkId: link.link_id, expiresAt: link.link_expires_at },
    usageKey: link.usage_key,
  };
}
