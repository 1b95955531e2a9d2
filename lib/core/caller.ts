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
}
