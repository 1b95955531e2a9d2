/**
 * $default of the push channel: a client's `{"action":"sync"}` (after connecting, then every few
 * minutes) is answered with every event after its cursor. Anything else is answered with one error
 * frame in docs/api.md's format; so is a connection that holds no slot any more (reconnect), and a
 * message over the connection's or the key's rate (`rate_limited`; the connection's persisting past
 * it is closed: docs/events.md, "Push").
 */
import { AppError } from '../../lib/core/errors.ts';
import { closeFromServer, postFrame } from '../../lib/events/push/channel.ts';
import { syncConnection, takeConnectionKeyMessage } from '../../lib/events/push/connections.ts';
import { connectionMessageVerdict } from '../../lib/events/push/message-limit.ts';
import { syncMessage } from '../../lib/events/push/schemas.ts';
import { errorBody } from '../../lib/http/errors.ts';
import { socketRoute } from '../../lib/http/socket-route.ts';
import { parseJsonMessage } from '../../lib/http/validation.ts';

export const handler = socketRoute(async ({ connectionId, body }) => {
  // Every message counts, a malformed one too: each was an invocation (lib/events/push/message-limit.ts).
  const verdict = await connectionMessageVerdict(connectionId);
  if (verdict.kind === 'dropped') return;
  if (verdict.kind !== 'ok') {
    await postFrame(connectionId, JSON.stringify(errorBody(verdict.error)));
    if (verdict.kind === 'close') await closeFromServer(connectionId);
    return;
  }
  let problem: AppError | undefined;
  try {
    // The key's rate counts every message of its connections, a malformed one too.
    const held = await takeConnectionKeyMessage(connectionId);
    parseJsonMessage(syncMessage, body);
    if (!(await syncConnection(connectionId, { post: postFrame, close: closeFromServer }, Date.now(), held))) {
      problem = new AppError('not_found', 'This connection is closed on our side; connect again with `after`.');
    }
  } catch (err) {
    if (!(err instanceof AppError) || err.code === 'internal_error') throw err;
    problem = err;
  }
  if (problem) await postFrame(connectionId, JSON.stringify(errorBody(problem)));
});
