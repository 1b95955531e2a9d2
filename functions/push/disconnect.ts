/** $disconnect of the push channel: the connection's slot is freed for the agent's next one. */
import { closeConnection } from '../../lib/events/push/connections.ts';
import { socketRoute } from '../../lib/http/socket-route.ts';

export const handler = socketRoute(({ connectionId }) => closeConnection(connectionId));
