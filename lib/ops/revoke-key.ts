/**
 * What a key's revocation ends besides the key (docs/operations.md, "Revoking a key"). The key item
 * marked revoked already ends the key and every portal link it made at their next request (the
 * authorizer reads both, uncached); this ends what holds on without asking again: the push
 * connections the key opened, and its entry in the stage's usage plan.
 */
import type { KeySummary, RevokedKey } from '../accounts/key-lifecycle.ts';
import type { CloseConnection } from '../events/push/channel.ts';
import { closeConnectionsOfKey } from '../events/push/connections.ts';

export interface RevocationReach {
  closeConnection: CloseConnection;
  /** Takes the key out of the usage plan (true: removed; false: not in it). Absent: no usage plan (the local runtime). */
  removeFromUsagePlan?: (key: { userId: string; usageKey: string }) => Promise<boolean>;
}

/** The admin command's line for a revoked key: its summary and what the revocation ended. */
export interface RevocationReport extends KeySummary {
  push_connections_closed: number;
  /** Connections freed whose close did not reach them: they get no frame, and their next sync is refused. */
  push_connections_unclosed: number;
  /** null when no usage plan was named. */
  usage_plan_key_removed: boolean | null;
}

/** Idempotent: a second run finds nothing more to end, so a run cut short is finished by running it again. */
export async function endRevokedKey(revoked: RevokedKey, reach: RevocationReach): Promise<RevocationReport> {
  const { user_id: userId } = revoked.summary;
  const push = await closeConnectionsOfKey(userId, revoked.usageKey, reach.closeConnection);
  const removed = reach.removeFromUsagePlan
    ? await reach.removeFromUsagePlan({ userId, usageKey: revoked.usageKey })
    : null;
  return {
    ...revoked.summary,
    push_connections_closed: push.closed,
    push_connections_unclosed: push.unclosed,
    usage_plan_key_removed: removed,
  };
}
