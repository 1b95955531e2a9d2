/**
 * Who is asking: the user behind the API key. The HTTP edge builds it from the authorizer's
 * context (lib/http/caller.ts); domain code only reads it.
 */
export interface Caller {
  userId: string;
  name: string;
  verified: boolean;
  operator: boolean;
  workspaceId: string;
  /**
   * Set when the request came with a portal link's token (lib/portal) rather than an API key: the
   * owner's identity, narrowed to one agent's portal routes until the link expires.
   */
  portal?: PortalScope;
  /**
   * The usage plan's name for the API key behind the request (the authorizer's `usageIdentifierKey`,
   * a hash): a portal link made with this key is counted against it, and dies with it.
   */
  usageKey?: string;
}

export interface PortalScope {
  agentId: string;
  /** The link (`pl_…`): a long-running answer (the SSE stream) asks again whether it still stands. */
  linkId: string;
  /** ISO time; the HTTP stack refuses the token after it too, whatever the authorizer answered. */
  expiresAt: string;
}
