/**
 * $connect of the push channel: the key's owner opens a connection to one of its agents' feeds,
 * resuming after `after` (docs/api.md, "Push channel"). Anyone else's agent is 404; the handshake
 * is refused with the error's status.
 */
import { openConnection } from '../../lib/events/push/connections.ts';
import { connectQuery } from '../../lib/events/push/schemas.ts';
import { socketConnectRoute } from '../../lib/http/socket-route.ts';

export const handler = socketConnectRoute(connectQuery, ({ caller, keyHash, query, connectionId }) =>
  openConnection(caller, { agentId: query.agent_id, after: query.after, connectionId, keyHash }),
);
