/**
 * Portal links (issue 25): an agent's owner hands a platform a URL that opens the portal page for
 * that one agent, with a token that lasts at most an hour, can be revoked, and is stored only as
 * its hash. What the token may call is the route table's `portal` rows, for that agent only
 * (the authorizer's policy and lib/http/caller.ts).
 */
import { ownAgent } from '../agents/agents.ts';
import type { Caller } from '../core/caller.ts';
import { AppError, notFound } from '../core/errors.ts';
import type { CommitAlong } from '../store/transact.ts';
import type { PortalLinkAnswer } from './answer.ts';
import type { CreatePortalLinkInput } from './schemas.ts';
import { putPortalLink, revokeOwnedPortalLink } from './store.ts';
import { newPortalToken, PORTAL_LINK_MAX_SECONDS } from './token.ts';

/**
 * `portalUrl` is the portal page's address; the token and agent ride in its fragment, which
 * browsers never send to a server nor put in a Referer, so no access log holds the token.
 */
export async function createPortalLink(
  caller: Caller,
  agentId: string,
  input: CreatePortalLinkInput,
  portalUrl: string,
  now = Date.now(),
  along?: CommitAlong<PortalLinkAnswer>,
): Promise<PortalLinkAnswer> {
  // A link cannot mint links: its life would outlast the hour.
  if (caller.portal) throw notFound('Agent');
  // A link lives while the key that made it does (portal-caller.ts): no key, no link.
  if (!caller.usageKey) throw new AppError('unauthorized', 'A portal link is made with an API key.');
  await ownAgent(caller, agentId);
  const { linkId, token, hash } = newPortalToken();
  const createdAt = new Date(now).toISOString();
  const expiresAt = new Date(now + (input?.expires_in_seconds ?? PORTAL_LINK_MAX_SECONDS) * 1000).toISOString();
  const fragment = new URLSearchParams({ agent: agentId, token }).toString();
  const answer: PortalLinkAnswer = {
    id: linkId,
    agent_id: agentId,
    url: `${portalUrl}#${fragment}`,
    token,
    created_at: createdAt,
    expires_at: expiresAt,
  };
  await putPortalLink(
    {
      link_id: linkId,
      token_hash: hash,
      agent_id: agentId,
      owner_id: caller.userId,
      workspace_id: caller.workspaceId,
      created_at: createdAt,
      link_expires_at: expiresAt,
      usage_key: caller.usageKey,
    },
    along?.(answer),
  );
  return answer;
}

/** Idempotent; another owner's link, another agent's or an unknown one is the same 404. */
export async function revokePortalLink(
  caller: Caller,
  agentId: string,
  linkId: string,
  along?: CommitAlong<void>,
): Promise<void> {
  if (caller.portal) throw notFound('Portal link');
  if (!(await revokeOwnedPortalLink(linkId, agentId, caller.userId, new Date().toISOString(), along?.())))
    throw notFound('Portal link');
}
